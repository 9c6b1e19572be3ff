import { holdsUnstorableText, storableJsonText, storableText, storableValue, unstorablePaths } from './storable-text.js';

describe('NUL before storage', () => {
  it('replaces NUL in text with U+FFFD and leaves other text as it is', () => {
    expect(storableText('a\u0000b')).toBe('a\uFFFDb');
    expect(storableText('plain')).toBe('plain');
  });

  it('replaces NUL in every string and key of a JSON value, at any depth', () => {
    const value = { 'k\u0000': ['x\u0000y', { deep: '\u0000' }], n: 1, t: true, z: null };
    expect(storableValue(value)).toEqual({ 'k\uFFFD': ['x\uFFFDy', { deep: '\uFFFD' }], n: 1, t: true, z: null });
    expect(holdsUnstorableText(storableValue(value))).toBe(false);
  });

  it('returns a value without NUL unchanged, as the same object', () => {
    const value = { a: ['b', { c: 'd' }] };
    expect(storableValue(value)).toBe(value);
    expect(holdsUnstorableText(value)).toBe(false);
  });

  it('reads an array of 500,000 items, what a 1 MiB body can hold, without overflowing the stack', () => {
    const wide = { items: new Array(500_000).fill(0) };
    expect(holdsUnstorableText(wide)).toBe(false);
    expect(holdsUnstorableText([...wide.items, 'a\u0000'])).toBe(true);
  });

  it('keeps a backslash followed by u0000 as text, which is not a NUL', () => {
    const value = { a: '\\u0000' };
    expect(storableValue(value)).toBe(value);
  });
});

describe('NUL next to escaped backslashes', () => {
  it('replaces only real NULs when the same value also holds the text \\u0000', () => {
    const value = { a: '\\u0000', b: '\\\u0000', c: '\u0000\u0000' };
    expect(storableValue(value)).toEqual({ a: '\\u0000', b: '\\\uFFFD', c: '\uFFFD\uFFFD' });
  });
});

describe('NUL in JSON text', () => {
  it('turns escaped NULs into \\ufffd and leaves escaped backslashes alone', () => {
    const text = JSON.stringify({ 'k\u0000': 'a\u0000', literal: '\\u0000' });
    expect(JSON.parse(storableJsonText(text))).toEqual({ 'k\uFFFD': 'a\uFFFD', literal: '\\u0000' });
  });
});

describe('unpaired surrogates, which jsonb refuses', () => {
  it('replaces a lone high or low surrogate with U+FFFD and keeps a pair (an emoji) whole', () => {
    expect(storableText('a\ud800b\udc00c')).toBe('a\uFFFDb\uFFFDc');
    expect(storableText('\udc00\ud800')).toBe('\uFFFD\uFFFD');
    expect(storableText('ok \ud83d\udca5')).toBe('ok \ud83d\udca5');
  });

  it('replaces them in every string and key of a JSON value, and in the JSON text of one', () => {
    const value = { 'k\ud800': ['\udfff', '💥'], literal: '\\ud800' };
    expect(storableValue(value)).toEqual({ 'k\uFFFD': ['\uFFFD', '💥'], literal: '\\ud800' });
    expect(storableJsonText(JSON.stringify({ a: '\ud800', b: '\\ud800' }))).toBe('{"a":"\\ufffd","b":"\\\\ud800"}');
  });

  it('names each path holding one, with what is wrong there, apart from NUL', () => {
    expect(unstorablePaths({ a: 'x\ud800', b: ['\u0000'], c: { '\udc00': 1 } }).sort((x, y) => String(x.path).localeCompare(String(y.path)))).toEqual([
      { path: ['a'], problem: 'must not contain an unpaired UTF-16 surrogate (such as \\ud800), which is not Unicode text' },
      { path: ['b', 0], problem: 'must not contain a NUL character' },
      { path: ['c'], problem: 'must not contain an unpaired UTF-16 surrogate (such as \\ud800), which is not Unicode text' },
    ]);
  });
});
