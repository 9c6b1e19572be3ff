import { SAMPLE_JSON_BODY as body } from '../../test/bodies.js';
import { jsonPathBudget, jsonPathProblem, MAX_FILTER_OPERATORS, queryJsonPath } from './json-path.js';

describe('queryJsonPath', () => {
  const doc = JSON.parse(body) as unknown;

  it('reports found with the value for one match and not found for none', () => {
    expect(queryJsonPath('$.count', doc)).toEqual({ found: true, value: 3 });
    expect(queryJsonPath('$.absent', doc)).toEqual({ found: false });
  });

  it('treats a null value as found', () => {
    expect(queryJsonPath('$.a', { a: null })).toEqual({ found: true, value: null });
  });

  it('skips nodes on which a filter cannot be evaluated instead of failing the whole query', () => {
    const items = { items: [{ id: 1 }, { id: 2, owner: { name: 'ann' } }] };
    expect(queryJsonPath('$.items[?(@.owner.name == "ann")].id', items)).toEqual({ found: true, value: 2 });
  });

  it('throws on a refused path', () => {
    expect(() => queryJsonPath('$.items[?(@.name.toUpperCase() == "A")]', doc)).toThrow(/function calls/);
  });

  it('refuses method calls even though jsonpath-plus would run them', () => {
    expect(() => queryJsonPath('$.items[?(@.name.match("(a+)+$"))]', doc)).toThrow(/function calls are not allowed/);
  });

  it('does arithmetic on numbers only: + never joins strings', () => {
    expect(queryJsonPath('$.items[?(@.score + 5 == 15)].name', doc)).toEqual({ found: true, value: 'a' });
    expect(queryJsonPath('$.items[?(@.score * 2 - 1 > 30)].name', doc)).toEqual({ found: true, value: 'b' });
    expect(queryJsonPath('$.items[?(@.name + "x" == "ax")]', doc)).toEqual({ found: false });
    expect(queryJsonPath('$.items[?(-@.name)]', doc)).toEqual({ found: false });
  });

  it('never turns an array or object into text to compare it', () => {
    // JavaScript would read ["x"] == "x" as "x" == "x".
    expect(queryJsonPath('$.items[?(@.tags == "x")].name', doc)).toEqual({ found: false });
    expect(queryJsonPath('$.items[?(@.tags[0] == "x")].name', doc)).toEqual({ found: true, value: 'a' });
    expect(queryJsonPath('$.items[?(@.tags < "y")].name', doc)).toEqual({ found: false });
  });

  it('reads the document root with @root', () => {
    expect(queryJsonPath('$.items[?(@.score > @root.count * 5)].name', doc)).toEqual({ found: true, value: 'b' });
  });

  it('reads own properties only, never inherited ones', () => {
    expect(queryJsonPath('$.items[?(@.name.length == 1)].score', doc)).toEqual({ found: true, value: [10, 20] });
    expect(queryJsonPath('$.items[?(@.tags.constructor || @.name.toString)]', doc)).toEqual({ found: false });
  });

  it('stops an evaluation that outruns its budget', () => {
    const big = { rows: Array.from({ length: 2_000 }, (_, i) => ({ id: i, tags: ['a', 'b'] })) };
    expect(() => queryJsonPath('$..id', big, jsonPathBudget(1_000))).toThrow(/exceeds the evaluation budget/);
    expect(() => queryJsonPath('$.rows[?(@.id > -1 && @.id < 100000 && @.id != 7)].id', big, jsonPathBudget(2_000))).toThrow(/budget/);
    expect(queryJsonPath('$..id', big)).toMatchObject({ found: true });
  });

  it('bounds several queries together when they share a budget', () => {
    const big = { rows: Array.from({ length: 1_000 }, (_, i) => ({ id: i })) };
    const budget = jsonPathBudget(5_000);
    expect(queryJsonPath('$.rows[*].id', big, budget)).toMatchObject({ found: true });
    expect(queryJsonPath('$.rows[*].id', big, budget)).toMatchObject({ found: true });
    expect(() => queryJsonPath('$.rows[*].id', big, budget)).toThrow(/budget/);
  });
});

describe('jsonPathProblem', () => {
  it.each([
    '$',
    '$.id',
    '$.items[0].name',
    '$.items[*]',
    '$.items.*',
    '$.items[0,1]',
    '$.items[1:]',
    '$.items[-1:]',
    '$.items[0:2:1]',
    "$.meta['content.type']",
    '$.meta["content.type"]',
    '$..name',
    '$..*',
    '$..[0]',
    '$.items[?(@.score >= 10 && @.name != "b")]',
    '$.items[?(@.tags[0] == "x")]',
    '$.items[?(@root.count > 1)]',
    '$.items[(@.length - 1)]',
    '$.$ref',
    '$.some-key',
  ])('accepts %s', (path) => {
    expect(jsonPathProblem(path)).toBeNull();
  });

  it.each([
    ['id', /must start with \$/],
    ['$.[', /unclosed|unexpected|property name/],
    ['$.a[', /unclosed/],
    ['$.a]', /unexpected/],
    ['$.', /property name/],
    ['$..', /property name/],
    ['$..a..b', /only once/],
    ['$.items[0,0]', /repeats an index/],
    ['$.items[-1]', /unsupported selector/],
    ["$['a','b']", /unsupported selector/],
    ["$['a,b']", /unsupported selector/],
    ['$.items[?(@.name.match("a"))]', /function calls/],
    ['$.items[?(x = 1)]', /not allowed|unknown name/],
    ['$.items[?(process)]', /unknown name "process"/],
    ['$.items[?(@.a[?(@.b)])]', /nested filters/],
    ['$.items[?(@.a ==)]', /.+/],
    ['$.a^', /unexpected/],
    ['$.a~', /unexpected/],
    ['$.a b', /unexpected/],
    [`$.${'a'.repeat(500)}`, /longer than 500 characters/],
    [`$[?(${Array.from({ length: MAX_FILTER_OPERATORS + 1 }, () => '@.a').join(' + ')} > 0)]`, /more than 20 operators/],
  ])('refuses %s', (path, reason) => {
    expect(jsonPathProblem(path)).toMatch(reason);
  });
});
