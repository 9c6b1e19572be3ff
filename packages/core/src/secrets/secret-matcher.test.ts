import { MultiMatcher } from './secret-matcher.js';

/** The ranges by brute force: every occurrence of every string, overlapping ones merged. */
function naiveRanges(text: string, strings: string[]): [number, number][] {
  const covered: [number, number][] = [];
  for (const s of strings.filter((x) => x.length > 0)) {
    for (let i = text.indexOf(s); i !== -1; i = text.indexOf(s, i + 1)) covered.push([i, i + s.length]);
  }
  covered.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const merged: [number, number][] = [];
  for (const [start, end] of covered) {
    const last = merged[merged.length - 1];
    if (last && start < last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}

function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('MultiMatcher', () => {
  it('finds each string, merging occurrences that overlap', () => {
    const matcher = new MultiMatcher(['abcd', 'cdef', 'xyz']);
    expect(matcher.ranges('..abcdef..xyz.xyzxyz')).toEqual([[2, 8], [10, 13], [14, 17], [17, 20]]);
    expect(matcher.replace('..abcdef..xyz.', '#')).toBe('..#..#.');
  });

  it('covers a string that ends inside another occurrence and one that starts before it', () => {
    expect(new MultiMatcher(['xyz123', '123secret']).replace('a xyz123secret b', '[s]')).toBe('a [s] b');
    expect(new MultiMatcher(['secret', 'top secret']).replace('top secret here', '[s]')).toBe('[s] here');
    expect(new MultiMatcher(['he', 'she', 'hers']).ranges('ushers')).toEqual([[1, 6]]);
  });

  it('matches code units exactly: a combining mark or a surrogate pair does not hide a string', () => {
    expect(new MultiMatcher(['SECRET']).replace('xSECRET\u0301y', '#')).toBe('x#\u0301y');
    expect(new MultiMatcher(['😀a']).replace('b😀a😀', '#')).toBe('b#😀');
  });

  it('returns the text unchanged without strings or without a match', () => {
    expect(new MultiMatcher([]).replace('text', '#')).toBe('text');
    expect(new MultiMatcher(['', 'zz']).replace('text', '#')).toBe('text');
  });

  it('agrees with a brute-force search on random texts and strings', () => {
    const random = seeded(7);
    const pick = (alphabet: string, n: number) => Array.from({ length: n }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
    for (let round = 0; round < 300; round += 1) {
      const alphabet = round % 2 ? 'ab' : 'abc\u00e9';
      const strings = Array.from({ length: 1 + Math.floor(random() * 6) }, () => pick(alphabet, 1 + Math.floor(random() * 6)));
      const text = pick(alphabet, Math.floor(random() * 80));
      expect(new MultiMatcher(strings).ranges(text)).toEqual(naiveRanges(text, strings));
    }
  });

  it('reads a 1 MiB text against strings sharing a long prefix', () => {
    // 200 strings sharing a long prefix, and a text made of that prefix: an alternation tries
    // every string at every position, the automaton reads each character a bounded number of times.
    const prefix = 'a'.repeat(1000);
    const strings = Array.from({ length: 200 }, (_, i) => `${prefix}${i}`);
    const text = 'a'.repeat(1024 * 1024);
    const matcher = new MultiMatcher(strings);
    expect(matcher.ranges(text)).toEqual([]);
    expect(matcher.longest).toBe(1003);
  });
});
