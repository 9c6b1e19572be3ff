import { RE2JS } from 're2js';
import type { ResponseMatcher } from '@cronsvc/contracts';

/**
 * Body matching (docs/JOBS.md, "Response matching and assertions"). Patterns come from job owners and run on every response,
 * so they run on RE2 (re2js): matching is linear in the body size, a pattern such as (a+)+$
 * cannot backtrack its way into stalling a worker. The price is RE2's syntax: no backreferences
 * and no lookaround, which is why patterns are compiled (and refused) when the job is saved.
 */

export type MatchResult = { ok: true } | { ok: false; reason: string };

const FLAG_BITS: Record<string, number> = { i: RE2JS.CASE_INSENSITIVE, m: RE2JS.MULTILINE, s: RE2JS.DOTALL };
// g, y and d change where a JS match starts or what it reports, not whether the body contains one;
// u and v are implied, RE2 always matches by code point.
const IGNORED_FLAGS = new Set(['g', 'y', 'd', 'u', 'v']);

// translateRegExp turns a JS named backreference \k<x> into the literal text k<x>, which would
// silently change the pattern's meaning, so it is refused before translation.
const NAMED_BACKREFERENCE = /(?:^|[^\\])(?:\\\\)*\\k</;
const JS_ONLY_SYNTAX = /\(\?<?[=!]|\\[1-9]|\\k</;

/** RE2 option bits for JS regex flags; throws on a flag JavaScript does not have. */
export function re2Flags(flags: string): number {
  let bits = 0;
  for (const flag of flags) {
    if (FLAG_BITS[flag] !== undefined) bits |= FLAG_BITS[flag];
    else if (!IGNORED_FLAGS.has(flag)) throw new Error(`unknown regex flag "${flag}"`);
  }
  return bits;
}

/**
 * Compiles a JS-style pattern for RE2. JS spellings RE2 lacks (\uXXXX, \cX, (?<name>...), [^])
 * are translated first. Throws an Error saying why when RE2 cannot run the pattern.
 */
export function compileMatcherPattern(pattern: string, flags = ''): RE2JS {
  const bits = re2Flags(flags);
  if (NAMED_BACKREFERENCE.test(pattern)) {
    throw new Error('is not supported: backreferences (\\k<name>) are not available in RE2 patterns');
  }
  try {
    return RE2JS.compile(RE2JS.translateRegExp(pattern), bits);
  } catch (error) {
    const hint = JS_ONLY_SYNTAX.test(pattern) ? ' (RE2 patterns have no lookahead, lookbehind or backreferences)' : '';
    throw new Error(`is not a valid regular expression: ${(error as Error).message}${hint}`);
  }
}

/** Every problem with a matcher, for the job schema; empty when the matcher can run. */
export function validateMatcher(matcher: ResponseMatcher | undefined): string[] {
  if (!matcher) return [];
  const problems: string[] = [];
  let flags = matcher.flags ?? '';
  try {
    re2Flags(flags);
  } catch (error) {
    problems.push(`flags: ${(error as Error).message}`);
    flags = '';
  }
  for (const key of ['success_pattern', 'failure_pattern'] as const) {
    const pattern = matcher[key];
    if (pattern === undefined) continue;
    try {
      compileMatcherPattern(pattern, flags);
    } catch (error) {
      problems.push(`${key} ${(error as Error).message}`);
    }
  }
  return problems;
}

function quote(pattern: string): string {
  return JSON.stringify(pattern.length > 80 ? `${pattern.slice(0, 80)}…` : pattern);
}

/**
 * A body matching failure_pattern fails; with success_pattern set, the body must
 * contain a match. A pattern that no longer compiles (saved before validation existed) fails
 * the response rather than being skipped: the owner asked for a check that cannot be made.
 */
export function matchResponse(matcher: ResponseMatcher | undefined, bodyText: string): MatchResult {
  if (!matcher) return { ok: true };
  const flags = matcher.flags ?? '';
  const found = (key: 'success_pattern' | 'failure_pattern', pattern: string): boolean | string => {
    try {
      return compileMatcherPattern(pattern, flags).test(bodyText);
    } catch (error) {
      return `${key} ${quote(pattern)} ${(error as Error).message}`;
    }
  };
  if (matcher.failure_pattern !== undefined) {
    const hit = found('failure_pattern', matcher.failure_pattern);
    if (typeof hit === 'string') return { ok: false, reason: hit };
    if (hit) return { ok: false, reason: `body matches failure_pattern ${quote(matcher.failure_pattern)}` };
  }
  if (matcher.success_pattern !== undefined) {
    const hit = found('success_pattern', matcher.success_pattern);
    if (typeof hit === 'string') return { ok: false, reason: hit };
    if (!hit) return { ok: false, reason: `body does not match success_pattern ${quote(matcher.success_pattern)}` };
  }
  return { ok: true };
}
