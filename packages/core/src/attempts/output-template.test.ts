import { SAMPLE_JSON_BODY as body } from '../../test/bodies.js';
import { MAX_OUTPUT_BYTES, renderOutput, validateOutputTemplate } from './output-template.js';

describe('renderOutput', () => {
  it('builds no string out of a 1 MiB body with + (each leaf is bounded work)', () => {
    // Before the fix, + joined strings: each node the filter ran on built a string four times
    // the body's biggest value, and with more + and recursive descent, hundreds of MB.
    const s = 'a'.repeat(200 * 1024);
    const hostile = JSON.stringify({ s, s4: s.repeat(4), n: 1 });
    expect(hostile.length).toBeGreaterThan(1_000_000);
    const template = { joined: '$[?(@root.s + @root.s + @root.s + @root.s == @root.s4)]', sum: '$[?(@root.n + @root.n == 2 && @ == 1)]' };
    expect(validateOutputTemplate(template)).toEqual([]);
    expect(renderOutput(template, hostile)).toEqual({ joined: null, sum: 1 });
  });

  it('replaces a $ leaf with the value of its single match', () => {
    expect(renderOutput({ id: '$.id', first: '$.items[0].name' }, body)).toEqual({ id: 'run-1', first: 'a' });
  });

  it('gives an array when the path matches several nodes', () => {
    expect(renderOutput({ names: '$.items[*].name' }, body)).toEqual({ names: ['a', 'b'] });
  });

  it('gives null when the path matches nothing', () => {
    expect(renderOutput({ missing: '$.nope', alsoMissing: '$.items[5]' }, body)).toEqual({ missing: null, alsoMissing: null });
  });

  it('keeps literal leaves as they are', () => {
    const template = { source: 'cron', version: 2, enabled: false, none: null, price: 'USD 5' };
    expect(renderOutput(template, body)).toEqual(template);
  });

  it('recurses into nested objects and arrays', () => {
    const template = { summary: { state: '$.status', counts: ['$.count', 7, { deep: '$.meta.nested.deep' }] } };
    expect(renderOutput(template, body)).toEqual({ summary: { state: 'ok', counts: [3, 7, { deep: true }] } });
  });

  it('returns a whole subtree when the path selects an object', () => {
    expect(renderOutput({ first: '$.items[0]' }, body)).toEqual({ first: { name: 'a', score: 10, tags: ['x'] } });
  });

  it('supports filters, slices, bracketed names and recursive descent', () => {
    const template = {
      high: '$.items[?(@.score > 15)].name',
      last: '$.items[-1:].name',
      dotted: "$.meta['content.type']",
      deep: '$..deep',
    };
    expect(renderOutput(template, body)).toEqual({ high: 'b', last: 'b', dotted: 'json', deep: true });
  });

  it('makes every $ leaf null when the body is not JSON, keeping literals', () => {
    expect(renderOutput({ id: '$.id', root: '$', kind: 'literal' }, '<html>oops</html>')).toEqual({ id: null, root: null, kind: 'literal' });
    expect(renderOutput({ id: '$.id' }, '')).toEqual({ id: null });
  });

  it('reads a JSON body preceded by a byte order mark', () => {
    expect(renderOutput({ id: '$.id' }, `\uFEFF${body}`)).toEqual({ id: 'run-1' });
  });

  it('can select a falsy root document with $', () => {
    expect(renderOutput({ root: '$', sub: '$.x' }, 'null')).toEqual({ root: null, sub: null });
    expect(renderOutput({ root: '$' }, '0')).toEqual({ root: 0 });
    expect(renderOutput({ root: '$' }, 'false')).toEqual({ root: false });
  });

  it('renders null for a path it refuses instead of guessing what it means', () => {
    // jsonpath-plus alone would read "$.[" as "$.." and return the whole document.
    expect(renderOutput({ broken: '$.[' }, body)).toEqual({ broken: null });
  });

  it('renders null rather than throwing when the document is too deep to search', () => {
    const deep = `${'['.repeat(200_000)}{"x":1}${']'.repeat(200_000)}`;
    expect(renderOutput({ x: '$..x', literal: 1 }, deep)).toEqual({ x: null, literal: 1 });
  });

  it('replaces a result over 64 KiB of JSON with {"_truncated": true}', () => {
    const big = JSON.stringify({ blob: 'x'.repeat(MAX_OUTPUT_BYTES) });
    expect(renderOutput({ blob: '$.blob' }, big)).toEqual({ _truncated: true });
  });

  it('keeps a result just under 64 KiB', () => {
    const big = JSON.stringify({ blob: 'x'.repeat(MAX_OUTPUT_BYTES - 100) });
    const output = renderOutput({ blob: '$.blob' }, big) as { blob: string };
    expect(output.blob).toHaveLength(MAX_OUTPUT_BYTES - 100);
  });

  it('keeps a "__proto__" template key as an ordinary key', () => {
    const template = JSON.parse('{"__proto__": "$.id"}') as unknown;
    const output = renderOutput(template, body) as Record<string, unknown>;
    expect(Object.getPrototypeOf(output)).toBe(Object.prototype);
    expect(Object.hasOwn(output, '__proto__')).toBe(true);
    expect(output.__proto__).toBe('run-1');
  });
});

describe('validateOutputTemplate', () => {
  it('accepts an object of literals and valid paths at any depth up to 10', () => {
    expect(validateOutputTemplate({ a: '$.x', b: [1, 'lit', { c: '$.y[0]' }], d: null })).toEqual([]);
  });

  it('requires an object', () => {
    expect(validateOutputTemplate('$.x')).toEqual(['must be an object']);
    expect(validateOutputTemplate(['$.x'])).toEqual(['must be an object']);
    expect(validateOutputTemplate(null)).toEqual(['must be an object']);
  });

  it('names every leaf whose JSONPath does not parse', () => {
    const problems = validateOutputTemplate({ ok: '$.a', bad: '$.[', list: ['$..a..b'] });
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^\$\.bad: "\$\.\[" is not a valid JSONPath/);
    expect(problems[1]).toMatch(/^\$\.list\[0\]: .*only once/);
  });

  it('allows 10 levels of nesting and refuses 11', () => {
    const nest = (levels: number): unknown => (levels === 1 ? { leaf: '$.x' } : { n: nest(levels - 1) });
    expect(validateOutputTemplate(nest(10))).toEqual([]);
    expect(validateOutputTemplate(nest(11))).toEqual([expect.stringMatching(/nested deeper than 10 levels/)]);
  });
});
