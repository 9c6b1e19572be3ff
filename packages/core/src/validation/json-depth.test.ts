import { nestedDeeperThan, textNestedDeeperThan } from './json-depth.js';

const nested = (levels: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < levels; i += 1) value = i % 2 ? [value] : { a: value };
  return value;
};

describe('nestedDeeperThan', () => {
  it('counts levels of arrays and objects, scalars being 0', () => {
    expect(nestedDeeperThan('text', 0)).toBe(false);
    expect(nestedDeeperThan([], 0)).toBe(true);
    expect(nestedDeeperThan(nested(64), 64)).toBe(false);
    expect(nestedDeeperThan(nested(65), 64)).toBe(true);
    expect(nestedDeeperThan({ wide: Array.from({ length: 1000 }, () => ({ x: [1] })) }, 4)).toBe(false);
    expect(nestedDeeperThan({ wide: Array.from({ length: 1000 }, () => ({ x: [1] })) }, 3)).toBe(true);
  });

  it('measures an array of 500,000 items, what a 1 MiB body can hold, without overflowing the stack', () => {
    expect(nestedDeeperThan({ items: new Array(500_000).fill(0) }, 64)).toBe(false);
  });

  it('measures 200,000 levels without overflowing the stack', () => {
    expect(nestedDeeperThan(JSON.parse('['.repeat(200_000) + ']'.repeat(200_000)), 64)).toBe(true);
  });
});

describe('textNestedDeeperThan', () => {
  it('counts brackets outside strings only', () => {
    const text = (s: string) => Buffer.from(s);
    expect(textNestedDeeperThan(text('{"a":[[1]]}'), 3)).toBe(false);
    expect(textNestedDeeperThan(text('{"a":[[[1]]]}'), 3)).toBe(true);
    expect(textNestedDeeperThan(text('{"a":"[[[[[\\"[[[["}'), 1)).toBe(false);
    expect(textNestedDeeperThan(text('['.repeat(200_000)), 100)).toBe(true);
  });
});
