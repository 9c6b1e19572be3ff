import { containsNul, withoutNul, withoutNulJsonText, withoutNulText } from './nul.js';

describe('NUL before storage', () => {
  it('replaces NUL in text with U+FFFD and leaves other text as it is', () => {
    expect(withoutNulText('a\u0000b')).toBe('a\uFFFDb');
    expect(withoutNulText('plain')).toBe('plain');
  });

  it('replaces NUL in every string and key of a JSON value, at any depth', () => {
    const value = { 'k\u0000': ['x\u0000y', { deep: '\u0000' }], n: 1, t: true, z: null };
    expect(withoutNul(value)).toEqual({ 'k\uFFFD': ['x\uFFFDy', { deep: '\uFFFD' }], n: 1, t: true, z: null });
    expect(containsNul(withoutNul(value))).toBe(false);
  });

  it('returns a value without NUL unchanged, as the same object', () => {
    const value = { a: ['b', { c: 'd' }] };
    expect(withoutNul(value)).toBe(value);
    expect(containsNul(value)).toBe(false);
  });

  it('reads an array of 500,000 items, what a 1 MiB body can hold, without overflowing the stack', () => {
    const wide = { items: new Array(500_000).fill(0) };
    expect(containsNul(wide)).toBe(false);
    expect(containsNul([...wide.items, 'a\u0000'])).toBe(true);
  });

  it('keeps a backslash followed by u0000 as text, which is not a NUL', () => {
    const value = { a: '\\u0000' };
    expect(withoutNul(value)).toBe(value);
  });
});

describe('NUL next to escaped backslashes', () => {
  it('replaces only real NULs when the same value also holds the text \\u0000', () => {
    const value = { a: '\\u0000', b: '\\\u0000', c: '\u0000\u0000' };
    expect(withoutNul(value)).toEqual({ a: '\\u0000', b: '\\\uFFFD', c: '\uFFFD\uFFFD' });
  });
});

describe('NUL in JSON text', () => {
  it('turns escaped NULs into \\ufffd and leaves escaped backslashes alone', () => {
    const text = JSON.stringify({ 'k\u0000': 'a\u0000', literal: '\\u0000' });
    expect(JSON.parse(withoutNulJsonText(text))).toEqual({ 'k\uFFFD': 'a\uFFFD', literal: '\\u0000' });
  });
});
