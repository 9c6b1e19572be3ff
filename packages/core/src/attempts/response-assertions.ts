import { ASSERTION_OPS, type Assertion, type RequestSpec } from '@cronsvc/contracts';
import type { SecretMasker } from '../secrets/mask-secrets.js';
import { jsonPathBudget, jsonPathProblem, parseJsonBody, queryJsonPath, type JsonPathBudget, type ParsedBody } from './json-path.js';
import { compileMatcherPattern } from './response-matcher.js';

/** response_assertions (docs/JOBS.md): every assertion must pass; every failure is reported. */

export type Assertions = RequestSpec['response_assertions'];
export type AssertedResponse = { statusCode: number; headers: Record<string, string>; bodyText: string };
export type AssertionResult = { ok: true } | { ok: false; failures: string[] };

const GROUPS = ['status', 'json', 'text', 'headers'] as const;
type Group = (typeof GROUPS)[number];
const VALUELESS_OPS = new Set(['exists', 'not_exists']);
const ORDER_OPS: Record<string, (actual: number, expected: number) => boolean> = {
  gt: (a, b) => a > b,
  gte: (a, b) => a >= b,
  lt: (a, b) => a < b,
  lte: (a, b) => a <= b,
};
const MAX_MESSAGE = 200;
// Decimal notation only: Number() would also read "0x1f", " " or "Infinity" as numbers.
const NUMERIC = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;

/** What an assertion looks at: a value, something absent (why), or a check that cannot run (why). */
type Actual = { kind: 'value'; value: unknown } | { kind: 'absent'; why: string } | { kind: 'error'; why: string };

export interface CheckOptions {
  /** Shared with the output template, so an attempt's JSONPath work is bounded as a whole. */
  budget?: JsonPathBudget;
  /** Masks secret values in what a failure message quotes from the response. */
  masker?: SecretMasker;
}

type Show = (value: unknown) => string;

/**
 * A value as a failure message quotes it: its JSON, cut at `max` characters. Masked before the
 * cut (with room for the longest secret past it), so a secret cut in two is still masked whole;
 * a long string is cut before it is turned into JSON, so a 1 MiB body costs no more than a word.
 */
function show(value: unknown, max = 60, masker?: SecretMasker): string {
  const room = max + (masker?.reach ?? 0) + 1;
  const source = typeof value === 'string' && value.length > room ? value.slice(0, room) : value;
  let text = source === undefined ? 'undefined' : (JSON.stringify(source) ?? String(source));
  if (masker) text = masker.mask(text.length > room ? text.slice(0, room) : text);
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  return keys.length === Object.keys(right).length && keys.every((key) => Object.hasOwn(right, key) && deepEqual(left[key], right[key]));
}

function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && NUMERIC.test(value)) return Number(value);
  return undefined;
}

/** Whether actual contains expected, or why the question makes no sense for this actual. */
function contains(actual: unknown, expected: unknown, show: Show): boolean | string {
  if (typeof actual === 'string') return actual.includes(typeof expected === 'string' ? expected : JSON.stringify(expected));
  if (Array.isArray(actual)) return actual.some((item) => deepEqual(item, expected));
  if (typeof actual === 'object' && actual !== null) {
    return (typeof expected === 'string' || typeof expected === 'number') && Object.hasOwn(actual, String(expected));
  }
  return `actual ${show(actual)} is not a string, array or object`;
}

/** Null when the assertion holds, otherwise why it does not. */
function verdict(op: string, expected: unknown, actual: Actual, show: Show): string | null {
  if (actual.kind === 'error') return actual.why;
  if (op === 'exists') return actual.kind === 'value' ? null : actual.why;
  if (op === 'not_exists') return actual.kind === 'value' ? `present, actual ${show(actual.value)}` : null;
  if (actual.kind === 'absent') return actual.why;
  if (expected === undefined) return 'has no value to compare with';
  const value = actual.value;
  switch (op) {
    case 'eq':
      return deepEqual(value, expected) ? null : `actual ${show(value)}`;
    case 'neq':
      return deepEqual(value, expected) ? `actual ${show(value)} is equal` : null;
    case 'contains':
    case 'not_contains': {
      const found = contains(value, expected, show);
      if (typeof found === 'string') return found;
      return found === (op === 'contains') ? null : `actual ${show(value)}`;
    }
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const [a, b] = [toNumber(value), toNumber(expected)];
      if (b === undefined) return `value ${show(expected)} is not a number`;
      if (a === undefined) return `actual ${show(value)} is not a number`;
      return ORDER_OPS[op](a, b) ? null : `actual ${show(value)}`;
    }
    case 'matches': {
      if (typeof expected !== 'string') return 'value must be a pattern string';
      // Numbers and booleans are matched as their text: "status matches ^2" is a natural thing to write.
      if (!['string', 'number', 'boolean'].includes(typeof value)) return `actual ${show(value)} is not a string`;
      let pattern;
      try {
        pattern = compileMatcherPattern(expected);
      } catch (error) {
        return `pattern ${(error as Error).message}`;
      }
      return pattern.test(String(value)) ? null : `actual ${show(value)}`;
    }
    case 'in':
      if (!Array.isArray(expected)) return 'value must be an array';
      return expected.some((item) => deepEqual(value, item)) ? null : `actual ${show(value)}`;
    default:
      return `unknown op ${show(op)}`;
  }
}

function label(group: Group, assertion: Assertion): string {
  const target = group === 'json' ? ` ${assertion.path}` : group === 'headers' ? ` ${assertion.name}` : '';
  const expected = VALUELESS_OPS.has(assertion.op) ? '' : ` ${show(assertion.value)}`;
  return `${group}${target} ${assertion.op}${expected}`;
}

export function checkAssertions(assertions: Assertions, response: AssertedResponse, options: CheckOptions = {}): AssertionResult {
  if (!assertions) return { ok: true };
  const budget = options.budget ?? jsonPathBudget();
  const shown: Show = (value) => show(value, 60, options.masker);
  let body: ParsedBody | undefined;
  const actualFor = (group: Group, assertion: Assertion): Actual => {
    switch (group) {
      case 'status':
        return { kind: 'value', value: response.statusCode };
      case 'text':
        return { kind: 'value', value: response.bodyText };
      case 'headers': {
        const name = (assertion.name ?? '').toLowerCase();
        const key = Object.keys(response.headers).find((header) => header.toLowerCase() === name);
        return key === undefined ? { kind: 'absent', why: 'header not present' } : { kind: 'value', value: response.headers[key] };
      }
      case 'json': {
        if (typeof assertion.path !== 'string') return { kind: 'error', why: 'has no path' };
        body ??= parseJsonBody(response.bodyText);
        if (!body.isJson) return { kind: 'absent', why: 'body is not JSON' };
        const result = queryJsonPath(assertion.path, body.value, budget);
        return result.found ? { kind: 'value', value: result.value } : { kind: 'absent', why: 'path matches nothing' };
      }
    }
  };
  const failures: string[] = [];
  for (const group of GROUPS) {
    for (const assertion of assertions[group] ?? []) {
      let why: string | null;
      try {
        why = verdict(assertion.op, assertion.value, actualFor(group, assertion), shown);
      } catch (error) {
        // A refused path, too many matches or a filter that throws: the check could not be made.
        why = `could not be evaluated: ${(error as Error).message}`;
      }
      if (why !== null) {
        const message = `${label(group, assertion)}: ${why}`;
        failures.push(message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE - 1)}…` : message);
      }
    }
  }
  return failures.length === 0 ? { ok: true } : { ok: false, failures };
}

/** Assertions as a request body holds them, before their ops are known to be valid. */
type UncheckedAssertions = { [G in Group]?: (Omit<Assertion, 'op'> & { op: string })[] } | undefined;

const isOp = (op: string): boolean => (ASSERTION_OPS as readonly string[]).includes(op);

/** Every problem the job schema should report when the assertions are saved. */
export function validateAssertions(assertions: UncheckedAssertions): string[] {
  if (!assertions) return [];
  const problems: string[] = [];
  for (const group of GROUPS) {
    (assertions[group] ?? []).forEach((assertion, index) => {
      const problem = (text: string) => problems.push(`${group}[${index}]: ${text}`);
      const { op, value } = assertion;
      if (!isOp(op)) problem(`unknown op ${show(op)}`);
      if (group === 'json') {
        const pathProblem = typeof assertion.path === 'string' ? jsonPathProblem(assertion.path) : 'is missing';
        if (pathProblem) problem(`path ${show(assertion.path)} is not a valid JSONPath: ${pathProblem}`);
      }
      if (group === 'headers' && (typeof assertion.name !== 'string' || assertion.name === '')) problem('name is missing');
      if (VALUELESS_OPS.has(op) || !isOp(op)) return;
      if (value === undefined) return void problem(`op ${op} needs a value`);
      if (op === 'in' && !Array.isArray(value)) problem('op in needs an array value');
      if (Object.hasOwn(ORDER_OPS, op) && (typeof value !== 'number' || !Number.isFinite(value))) problem(`op ${op} needs a number value`);
      if (op === 'matches') {
        if (typeof value !== 'string') problem('op matches needs a pattern string value');
        else {
          try {
            compileMatcherPattern(value);
          } catch (error) {
            problem(`pattern ${show(value)} ${(error as Error).message}`);
          }
        }
      }
    });
  }
  return problems;
}
