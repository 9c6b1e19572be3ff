import { compileMatcherPattern, matchResponse, validateMatcher } from './response-matcher.js';

describe('matchResponse', () => {
  it('passes any body when there is no matcher', () => {
    expect(matchResponse(undefined, 'anything')).toEqual({ ok: true });
    expect(matchResponse({}, 'anything')).toEqual({ ok: true });
  });

  it('fails a body that matches failure_pattern (rule 1)', () => {
    const result = matchResponse({ failure_pattern: '"status":\\s*"error"' }, '{"status": "error"}');
    expect(result).toEqual({ ok: false, reason: expect.stringContaining('matches failure_pattern') });
  });

  it('passes a body that does not match failure_pattern', () => {
    expect(matchResponse({ failure_pattern: 'error' }, '{"status":"ok"}')).toEqual({ ok: true });
  });

  it('passes a body that contains a match for success_pattern (rule 2)', () => {
    expect(matchResponse({ success_pattern: '"ok":\\s*true' }, 'prefix {"ok": true} suffix')).toEqual({ ok: true });
  });

  it('fails a body without a match for success_pattern', () => {
    const result = matchResponse({ success_pattern: '"ok":\\s*true' }, '{"ok": false}');
    expect(result).toEqual({ ok: false, reason: expect.stringContaining('does not match success_pattern') });
  });

  it('lets failure_pattern win when both patterns match', () => {
    const result = matchResponse({ success_pattern: 'done', failure_pattern: 'partial' }, 'done, partial');
    expect(result).toEqual({ ok: false, reason: expect.stringContaining('failure_pattern') });
  });

  it('requires both rules to pass when both patterns are set', () => {
    expect(matchResponse({ success_pattern: 'done', failure_pattern: 'error' }, 'done')).toEqual({ ok: true });
    expect(matchResponse({ success_pattern: 'done', failure_pattern: 'error' }, 'pending').ok).toBe(false);
  });

  it('treats an empty body as having no match', () => {
    expect(matchResponse({ success_pattern: 'x' }, '').ok).toBe(false);
    expect(matchResponse({ failure_pattern: 'x' }, '').ok).toBe(true);
  });

  it('matches case-insensitively only with the i flag', () => {
    expect(matchResponse({ success_pattern: 'SUCCESS' }, 'success').ok).toBe(false);
    expect(matchResponse({ success_pattern: 'SUCCESS', flags: 'i' }, 'success').ok).toBe(true);
  });

  it('anchors ^ and $ at line boundaries only with the m flag', () => {
    expect(matchResponse({ success_pattern: '^ok$' }, 'line1\nok\nline3').ok).toBe(false);
    expect(matchResponse({ success_pattern: '^ok$', flags: 'm' }, 'line1\nok\nline3').ok).toBe(true);
  });

  it('lets . cross newlines only with the s flag', () => {
    expect(matchResponse({ success_pattern: 'start.end' }, 'start\nend').ok).toBe(false);
    expect(matchResponse({ success_pattern: 'start.end', flags: 's' }, 'start\nend').ok).toBe(true);
  });

  it('ignores g, y, d, u and v, which do not change whether the body contains a match', () => {
    expect(matchResponse({ success_pattern: 'b', flags: 'gydu' }, 'abc').ok).toBe(true);
    expect(matchResponse({ success_pattern: 'z', flags: 'gv' }, 'abc').ok).toBe(false);
  });

  it('understands JS spellings RE2 lacks: \\u escapes and (?<name>) groups', () => {
    expect(matchResponse({ success_pattern: '\\u0041BC' }, 'xABCx').ok).toBe(true);
    expect(matchResponse({ success_pattern: '(?<word>\\d+)-done' }, 'job 42-done').ok).toBe(true);
  });

  it('returns promptly on a catastrophic-backtracking pattern over a 64 KiB body', () => {
    const body = `${'a'.repeat(64 * 1024)}b`;
    expect(matchResponse({ success_pattern: '(a+)+$' }, body)).toEqual({ ok: false, reason: expect.stringContaining('does not match') });
    expect(matchResponse({ failure_pattern: '(a|aa)+c' }, body)).toEqual({ ok: true });
  });

  it('fails the response, naming the pattern, when a stored pattern cannot run on RE2', () => {
    const result = matchResponse({ success_pattern: '(a)\\1' }, 'aa');
    expect(result).toEqual({ ok: false, reason: expect.stringMatching(/success_pattern "\(a\)\\\\1" is not a valid regular expression/) });
  });
});

describe('compileMatcherPattern', () => {
  it('returns a pattern whose test finds a match anywhere in the text', () => {
    expect(compileMatcherPattern('b+', '').test('abbbc')).toBe(true);
    expect(compileMatcherPattern('^b', '').test('abc')).toBe(false);
  });

  it('throws on a backreference', () => {
    expect(() => compileMatcherPattern('(a)\\1', '')).toThrow(/not a valid regular expression.*backreferences/);
  });

  it('throws on a named backreference instead of reading it as the text k<name>', () => {
    expect(() => compileMatcherPattern('(?<x>a)\\k<x>', '')).toThrow(/backreferences/);
  });

  it('accepts an escaped backslash followed by the letter k', () => {
    expect(compileMatcherPattern('\\\\k<', '').test('\\k<')).toBe(true);
  });

  it('throws on lookahead and lookbehind', () => {
    expect(() => compileMatcherPattern('foo(?=bar)', '')).toThrow(/lookahead/);
    expect(() => compileMatcherPattern('(?<!x)foo', '')).toThrow(/lookahead/);
  });

  it('throws on plain syntax errors', () => {
    expect(() => compileMatcherPattern('(unclosed', '')).toThrow(/not a valid regular expression/);
  });

  it('throws on a flag JavaScript does not have', () => {
    expect(() => compileMatcherPattern('a', 'x')).toThrow(/unknown regex flag "x"/);
  });
});

describe('validateMatcher', () => {
  it('reports nothing for a matcher RE2 can run, or for no matcher', () => {
    expect(validateMatcher({ success_pattern: '\\bok\\b', failure_pattern: 'err(or)?', flags: 'gi' })).toEqual([]);
    expect(validateMatcher(undefined)).toEqual([]);
  });

  it('reports every bad pattern, each under its own name', () => {
    const problems = validateMatcher({ success_pattern: '(?=x)', failure_pattern: '(a)\\1' });
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^success_pattern is not a valid regular expression/);
    expect(problems[1]).toMatch(/^failure_pattern is not a valid regular expression/);
  });

  it('reports a bad flag once and still checks the patterns', () => {
    const problems = validateMatcher({ success_pattern: 'ok', failure_pattern: '(?!x)', flags: 'iq' });
    expect(problems).toEqual(['flags: unknown regex flag "q"', expect.stringMatching(/^failure_pattern/)]);
  });
});
