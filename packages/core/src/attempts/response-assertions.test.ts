import type { Assertion } from '@cronsvc/contracts';
import { secretMasker } from '../secrets/mask-secrets.js';
import { checkAssertions, validateAssertions, type AssertedResponse, type Assertions } from './response-assertions.js';

const jsonBody = {
  status: 'ok',
  count: 3,
  ratio: '2.5',
  empty: null,
  items: [
    { id: 1, name: 'alpha', tags: ['x', 'y'] },
    { id: 2, name: 'beta', tags: [] },
  ],
  meta: { region: 'eu', version: 'v2' },
};

function response(overrides: Partial<AssertedResponse> = {}): AssertedResponse {
  return {
    statusCode: 200,
    headers: { 'content-type': 'application/json; charset=utf-8', 'content-length': '512' },
    bodyText: JSON.stringify(jsonBody),
    ...overrides,
  };
}

/** Runs one assertion of a group; true when it passes. Failures must carry a message. */
function passes(group: keyof NonNullable<Assertions>, assertion: Assertion, res: AssertedResponse = response()): boolean {
  const result = checkAssertions({ [group]: [assertion] }, res);
  if (!result.ok) expect(result.failures).toEqual([expect.stringMatching(new RegExp(`^${group}`))]);
  return result.ok;
}

describe('checkAssertions', () => {
  it('passes when there are no assertions', () => {
    expect(checkAssertions(undefined, response())).toEqual({ ok: true });
    expect(checkAssertions({}, response())).toEqual({ ok: true });
  });

  describe('status', () => {
    it('compares the status code', () => {
      expect(passes('status', { op: 'eq', value: 200 })).toBe(true);
      expect(passes('status', { op: 'eq', value: 201 })).toBe(false);
      expect(passes('status', { op: 'in', value: [200, 204] })).toBe(true);
      expect(passes('status', { op: 'in', value: [201, 204] })).toBe(false);
      expect(passes('status', { op: 'lt', value: 300 })).toBe(true);
      expect(passes('status', { op: 'gte', value: 300 })).toBe(false);
    });

    it('matches the status code as text', () => {
      expect(passes('status', { op: 'matches', value: '^2\\d\\d$' })).toBe(true);
      expect(passes('status', { op: 'matches', value: '^4' })).toBe(false);
    });

    it('does not coerce a string value to the numeric status for eq', () => {
      expect(passes('status', { op: 'eq', value: '200' })).toBe(false);
    });
  });

  describe('eq and neq', () => {
    it('compare scalars strictly', () => {
      expect(passes('json', { path: '$.status', op: 'eq', value: 'ok' })).toBe(true);
      expect(passes('json', { path: '$.status', op: 'eq', value: 'error' })).toBe(false);
      expect(passes('json', { path: '$.count', op: 'eq', value: '3' })).toBe(false);
      expect(passes('json', { path: '$.status', op: 'neq', value: 'error' })).toBe(true);
      expect(passes('json', { path: '$.status', op: 'neq', value: 'ok' })).toBe(false);
    });

    it('compare objects and arrays deeply, ignoring key order', () => {
      expect(passes('json', { path: '$.meta', op: 'eq', value: { version: 'v2', region: 'eu' } })).toBe(true);
      expect(passes('json', { path: '$.meta', op: 'eq', value: { region: 'eu' } })).toBe(false);
      expect(passes('json', { path: '$.items[0].tags', op: 'eq', value: ['x', 'y'] })).toBe(true);
      expect(passes('json', { path: '$.items[0].tags', op: 'eq', value: ['y', 'x'] })).toBe(false);
      expect(passes('json', { path: '$.items[1].tags', op: 'neq', value: {} })).toBe(true);
      expect(passes('json', { path: '$.meta', op: 'neq', value: { region: 'eu', version: 'v2' } })).toBe(false);
    });

    it('see a JSON null as a value equal to null', () => {
      expect(passes('json', { path: '$.empty', op: 'eq', value: null })).toBe(true);
      expect(passes('json', { path: '$.empty', op: 'exists' })).toBe(true);
    });
  });

  describe('contains and not_contains', () => {
    it('look for a substring in strings', () => {
      expect(passes('json', { path: '$.items[0].name', op: 'contains', value: 'lph' })).toBe(true);
      expect(passes('json', { path: '$.items[0].name', op: 'contains', value: 'bet' })).toBe(false);
      expect(passes('json', { path: '$.items[0].name', op: 'not_contains', value: 'bet' })).toBe(true);
      expect(passes('json', { path: '$.items[0].name', op: 'not_contains', value: 'alp' })).toBe(false);
    });

    it('look for a deep-equal element in arrays', () => {
      expect(passes('json', { path: '$.items[0].tags', op: 'contains', value: 'y' })).toBe(true);
      expect(passes('json', { path: '$.items[0].tags', op: 'contains', value: 'z' })).toBe(false);
      expect(passes('json', { path: '$.items', op: 'contains', value: { id: 2, name: 'beta', tags: [] } })).toBe(true);
      expect(passes('json', { path: '$.items[0].tags', op: 'not_contains', value: 'z' })).toBe(true);
      expect(passes('json', { path: '$.items[0].tags', op: 'not_contains', value: 'x' })).toBe(false);
    });

    it('look for a key in objects', () => {
      expect(passes('json', { path: '$.meta', op: 'contains', value: 'region' })).toBe(true);
      expect(passes('json', { path: '$.meta', op: 'contains', value: 'eu' })).toBe(false);
      expect(passes('json', { path: '$.meta', op: 'not_contains', value: 'owner' })).toBe(true);
      expect(passes('json', { path: '$.meta', op: 'not_contains', value: 'version' })).toBe(false);
    });

    it('fail both ways on a number, which holds nothing', () => {
      expect(passes('json', { path: '$.count', op: 'contains', value: 3 })).toBe(false);
      expect(passes('json', { path: '$.count', op: 'not_contains', value: 4 })).toBe(false);
    });

    it('search text for non-string values by their JSON text', () => {
      expect(passes('text', { op: 'contains', value: 3 })).toBe(true);
      expect(passes('text', { op: 'contains', value: { region: 'eu' } })).toBe(false);
      expect(passes('text', { op: 'contains', value: '"region":"eu"' })).toBe(true);
    });
  });

  describe('exists and not_exists', () => {
    it('check whether a path matches anything, ignoring value', () => {
      expect(passes('json', { path: '$.meta.region', op: 'exists', value: 'ignored' })).toBe(true);
      expect(passes('json', { path: '$.meta.owner', op: 'exists' })).toBe(false);
      expect(passes('json', { path: '$.meta.owner', op: 'not_exists' })).toBe(true);
      expect(passes('json', { path: '$.meta.region', op: 'not_exists' })).toBe(false);
    });

    it('check whether a header is present', () => {
      expect(passes('headers', { name: 'content-type', op: 'exists' })).toBe(true);
      expect(passes('headers', { name: 'etag', op: 'exists' })).toBe(false);
      expect(passes('headers', { name: 'etag', op: 'not_exists' })).toBe(true);
      expect(passes('headers', { name: 'content-type', op: 'not_exists' })).toBe(false);
    });
  });

  describe('gt, gte, lt and lte', () => {
    it('compare numbers', () => {
      expect(passes('json', { path: '$.count', op: 'gt', value: 2 })).toBe(true);
      expect(passes('json', { path: '$.count', op: 'gt', value: 3 })).toBe(false);
      expect(passes('json', { path: '$.count', op: 'gte', value: 3 })).toBe(true);
      expect(passes('json', { path: '$.count', op: 'gte', value: 4 })).toBe(false);
      expect(passes('json', { path: '$.count', op: 'lt', value: 4 })).toBe(true);
      expect(passes('json', { path: '$.count', op: 'lt', value: 3 })).toBe(false);
      expect(passes('json', { path: '$.count', op: 'lte', value: 3 })).toBe(true);
      expect(passes('json', { path: '$.count', op: 'lte', value: 2 })).toBe(false);
    });

    it('compare numeric strings as numbers, not as text', () => {
      expect(passes('json', { path: '$.ratio', op: 'gt', value: 10 - 7.6 })).toBe(true);
      expect(passes('json', { path: '$.ratio', op: 'lt', value: 10 })).toBe(true);
      expect(passes('headers', { name: 'content-length', op: 'gt', value: 100 })).toBe(true);
      expect(passes('headers', { name: 'content-length', op: 'lte', value: 99 })).toBe(false);
    });

    it('fail on values that are not numbers', () => {
      expect(passes('json', { path: '$.status', op: 'gt', value: 1 })).toBe(false);
      expect(passes('json', { path: '$.status', op: 'lt', value: 1 })).toBe(false);
      expect(passes('json', { path: '$.items', op: 'gte', value: 0 })).toBe(false);
      expect(passes('json', { path: '$.count', op: 'gt', value: 'many' })).toBe(false);
    });
  });

  describe('matches', () => {
    it('runs an RE2 pattern over the value', () => {
      expect(passes('json', { path: '$.meta.version', op: 'matches', value: '^v\\d+$' })).toBe(true);
      expect(passes('json', { path: '$.meta.version', op: 'matches', value: '^\\d+$' })).toBe(false);
      expect(passes('headers', { name: 'content-type', op: 'matches', value: '(?i)^APPLICATION/JSON' })).toBe(true);
    });

    it('returns promptly on a catastrophic-backtracking pattern', () => {
      const res = response({ bodyText: `${'a'.repeat(64 * 1024)}b` });
      expect(passes('text', { op: 'matches', value: '(a+)+$' }, res)).toBe(false);
    });

    it('fails on a pattern RE2 cannot run and on a non-string value', () => {
      expect(passes('text', { op: 'matches', value: 'ok(?=!)' })).toBe(false);
      expect(passes('json', { path: '$.meta', op: 'matches', value: '.' })).toBe(false);
    });
  });

  describe('in', () => {
    it('passes when the value deep-equals one element', () => {
      expect(passes('json', { path: '$.meta.region', op: 'in', value: ['us', 'eu'] })).toBe(true);
      expect(passes('json', { path: '$.meta.region', op: 'in', value: ['us', 'ap'] })).toBe(false);
      expect(passes('json', { path: '$.items[1].tags', op: 'in', value: [[], ['x']] })).toBe(true);
    });

    it('fails when value is not an array', () => {
      expect(passes('json', { path: '$.meta.region', op: 'in', value: 'eu' })).toBe(false);
    });
  });

  describe('json paths', () => {
    it('compare a single match as the value and several matches as an array', () => {
      expect(passes('json', { path: '$.items[?(@.id == 2)].name', op: 'eq', value: 'beta' })).toBe(true);
      expect(passes('json', { path: '$.items[*].name', op: 'eq', value: ['alpha', 'beta'] })).toBe(true);
      expect(passes('json', { path: '$.items[*].id', op: 'contains', value: 2 })).toBe(true);
    });

    it('fail every op but not_exists on a path that matches nothing', () => {
      expect(passes('json', { path: '$.nope', op: 'neq', value: 'x' })).toBe(false);
      expect(passes('json', { path: '$.nope', op: 'not_contains', value: 'x' })).toBe(false);
      expect(passes('json', { path: '$.nope', op: 'not_exists' })).toBe(true);
    });

    it('fail every op but not_exists on a body that is not JSON', () => {
      const html = response({ bodyText: '<html>ok</html>' });
      expect(passes('json', { path: '$', op: 'exists' }, html)).toBe(false);
      expect(passes('json', { path: '$.status', op: 'neq', value: 'x' }, html)).toBe(false);
      expect(passes('json', { path: '$.status', op: 'not_contains', value: 'x' }, html)).toBe(false);
      expect(passes('json', { path: '$.status', op: 'not_exists' }, html)).toBe(true);
    });

    it('fail with a message, not an exception, when the document is too deep to search', () => {
      const deep = response({ bodyText: `${'['.repeat(200_000)}{"x":1}${']'.repeat(200_000)}` });
      const result = checkAssertions({ json: [{ path: '$..x', op: 'exists' }] }, deep);
      expect(result).toEqual({ ok: false, failures: [expect.stringMatching(/^json \$\.\.x exists: could not be evaluated/)] });
    });

    it('fail, even for not_exists, on a path the service refuses', () => {
      expect(passes('json', { path: '$.[', op: 'not_exists' })).toBe(false);
    });
  });

  describe('text', () => {
    it('checks the raw body text', () => {
      expect(passes('text', { op: 'contains', value: '"status":"ok"' })).toBe(true);
      expect(passes('text', { op: 'not_contains', value: 'error' })).toBe(true);
      expect(passes('text', { op: 'eq', value: '' }, response({ bodyText: '' }))).toBe(true);
      expect(passes('text', { op: 'neq', value: '' }, response({ bodyText: '' }))).toBe(false);
    });
  });

  describe('headers', () => {
    it('finds a header whatever the case of the name', () => {
      expect(passes('headers', { name: 'Content-Type', op: 'contains', value: 'json' })).toBe(true);
      expect(passes('headers', { name: 'CONTENT-TYPE', op: 'eq', value: 'text/html' })).toBe(false);
    });

    it('fails value checks on a header that is not present', () => {
      expect(passes('headers', { name: 'x-request-id', op: 'neq', value: 'abc' })).toBe(false);
    });
  });

  it('reports every failure, naming group, target, op, expected and actual', () => {
    const result = checkAssertions(
      {
        status: [{ op: 'eq', value: 201 }],
        json: [{ path: '$.status', op: 'eq', value: 'ok' }, { path: '$.count', op: 'gt', value: 5 }],
        text: [{ op: 'contains', value: 'DONE' }],
        headers: [{ name: 'Content-Type', op: 'eq', value: 'text/plain' }],
      },
      response(),
    );
    expect(result).toEqual({
      ok: false,
      failures: [
        'status eq 201: actual 200',
        'json $.count gt 5: actual 3',
        expect.stringMatching(/^text contains "DONE": actual "\{\\"status/),
        'headers Content-Type eq "text/plain": actual "application/json; charset=utf-8"',
      ],
    });
  });

  it('masks a secret in what a failure message quotes, also where the quote cuts it', () => {
    const secret = 'sk_live_abcdefghijklmnopqrstuvwxyz';
    // The quote is the body's first 60 characters of JSON: the secret starts at 46 and is cut.
    const bodyText = `${'x'.repeat(45)}${secret} and the rest`;
    const masker = secretMasker([secret]);
    const result = checkAssertions({ text: [{ op: 'eq', value: 'ok' }] }, { statusCode: 200, headers: {}, bodyText }, { masker });
    expect(result.ok).toBe(false);
    // What the executor stores: the message, masked once more as a whole.
    const stored = masker.mask((result as { failures: string[] }).failures.join('; '));
    expect(stored).toContain(`"${'x'.repeat(45)}[secret]`);
    expect(stored).not.toContain(secret.slice(0, 6));
  });

  it('keeps each failure message to about 200 characters', () => {
    const long = 'x'.repeat(1000);
    const result = checkAssertions({ text: [{ op: 'eq', value: long }] }, response({ bodyText: long.replace(/x$/, 'y') }));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.failures[0].length).toBeLessThanOrEqual(200);
  });
});

describe('validateAssertions', () => {
  it('reports nothing for well-formed assertions', () => {
    expect(
      validateAssertions({
        status: [{ op: 'in', value: [200, 201] }],
        json: [{ path: '$.items[?(@.id > 1)].name', op: 'matches', value: '^b' }, { path: '$.x', op: 'exists' }],
        text: [{ op: 'not_contains', value: 'error' }],
        headers: [{ name: 'content-length', op: 'lte', value: 1000 }],
      }),
    ).toEqual([]);
    expect(validateAssertions(undefined)).toEqual([]);
  });

  it('reports an invalid JSONPath', () => {
    expect(validateAssertions({ json: [{ path: '$.[', op: 'exists' }] })).toEqual([expect.stringMatching(/^json\[0\]: path "\$\.\[" is not a valid JSONPath/)]);
  });

  it('reports matches with a non-string or uncompilable pattern', () => {
    expect(validateAssertions({ text: [{ op: 'matches', value: 5 }, { op: 'matches', value: '(a)\\1' }] })).toEqual([
      'text[0]: op matches needs a pattern string value',
      expect.stringMatching(/^text\[1\]: pattern .* (is not supported|is not a valid regular expression)/),
    ]);
  });

  it('reports in without an array value', () => {
    expect(validateAssertions({ status: [{ op: 'in', value: 200 }] })).toEqual(['status[0]: op in needs an array value']);
  });

  it('reports gt, gte, lt and lte without a number value', () => {
    const ops = ['gt', 'gte', 'lt', 'lte'];
    expect(validateAssertions({ status: ops.map((op) => ({ op, value: '300' })) })).toEqual(ops.map((op, i) => `status[${i}]: op ${op} needs a number value`));
  });

  it('reports a missing value for every op except exists and not_exists', () => {
    const ops = ['eq', 'neq', 'contains', 'not_contains', 'gt', 'gte', 'lt', 'lte', 'matches', 'in'];
    expect(validateAssertions({ text: ops.map((op) => ({ op })) })).toEqual(ops.map((op, i) => `text[${i}]: op ${op} needs a value`));
    expect(validateAssertions({ text: [{ op: 'exists' }, { op: 'not_exists' }] })).toEqual([]);
  });

  it('accepts null as a value', () => {
    expect(validateAssertions({ json: [{ path: '$.a', op: 'eq', value: null }] })).toEqual([]);
  });

  it('reports unknown ops and missing paths or header names', () => {
    expect(validateAssertions({ json: [{ op: 'eq', value: 1 }], headers: [{ op: 'like', value: 'x' }] })).toEqual([
      'json[0]: path undefined is not a valid JSONPath: is missing',
      'headers[0]: unknown op "like"',
      'headers[0]: name is missing',
    ]);
  });
});
