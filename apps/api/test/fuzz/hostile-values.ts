import fc from 'fast-check';

/**
 * Values an attacker or a careless client puts where a field is expected: the building blocks of
 * every fuzzed body, query string and path. Long and deep values are generated as small objects
 * that expand when serialized, so a failure's counterexample prints as `"x".repeat(70000)`.
 */

/** A long string, sent in full, printed short. */
export class Repeated {
  constructor(
    readonly unit: string,
    readonly times: number,
  ) {}
  toJSON(): string {
    return this.unit.repeat(this.times);
  }
  toString(): string {
    return this.toJSON();
  }
  [fc.toStringMethod](): string {
    return `${JSON.stringify(this.unit)}.repeat(${this.times})`;
  }
}

/** A value nested `levels` deep in alternating objects and arrays, sent in full, printed short. */
export class Nested {
  constructor(readonly levels: number) {}
  toJSON(): unknown {
    let value: unknown = 'leaf';
    for (let i = 0; i < this.levels; i += 1) value = i % 2 ? [value] : { a: value };
    return value;
  }
  [fc.toStringMethod](): string {
    return `nested(${this.levels})`;
  }
}

/** An array of `times` copies of `item`, sent in full, printed short. */
export class Many {
  constructor(
    readonly item: unknown,
    readonly times: number,
  ) {}
  toJSON(): unknown[] {
    return new Array(this.times).fill(this.item);
  }
  [fc.toStringMethod](): string {
    return `Array(${this.times}).fill(${JSON.stringify(this.item)})`;
  }
}

const LONE_SURROGATES = ['\ud800', '\udbff', '\udc00', '\udfff'];

/** One UTF-16 code unit of any kind (ASCII most often), lone surrogates and NUL included. */
const codeUnit = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) },
  { weight: 1, arbitrary: fc.constantFrom('\u0000', '\u001f', '\u007f', '\u2028', '\u202e', '\ufeff', '\ufffd', '💥', 'é', ...LONE_SURROGATES) },
);

/** Short text of any code units. */
export const anyText = (maxLength = 24) => fc.string({ unit: codeUnit, maxLength });

export const hostileStrings = [
  '', ' ', '\t', '\u0000', 'a\u0000b', '\ud800', 'x\udc00y', '\ud83d', '💥', '\u202eevil', '\ufeff',
  'NaN', 'Infinity', '-Infinity', '-1', '0', '1e999', '0x10', '1_000', 'null', 'true', 'undefined', '[]', '{}',
  '__proto__', 'constructor', 'prototype', '../../etc/passwd', '%00', '%ZZ', "'; DROP TABLE jobs; --", '<script>alert(1)</script>',
  '{{', '}}', '{{secret.NOPE}}', '{{secret.EXPORT_KEY}}', '{{ uuid }}', '{{context.x}}', '{{trigger.body.a}}', '{{constructor}}',
  '$', '$..*', '$[?(@.a)]', '$.a[(@.length-1)]', '(a+)+$', '[', '*',
  '2030-02-30T00:00:00Z', '2030-01-01T00:00:00', '2030-01-01', '0000-01-01T00:00:00Z', '+275760-09-13T00:00:00.000Z',
  '-271821-04-20T00:00:00.000Z', '9999-12-31T23:59:59.999Z', '2000-01-01T00:00:00+99:99', '1970-01-01T00:00:00Z',
  '* * * * * *', '0 0 30 2 *', '*/0 * * * *', '1-1000000000 * * * *', '@reboot', '60 * * * *', 'FRI-MON * * * *', '0 0 * * 8',
  'http://', 'ftp://example.com/', 'http://localhost/', 'http://[::1]/', 'http://169.254.169.254/', 'http://0x7f.1/', 'javascript:alert(1)',
  'http://user:pass@example.com/', 'https://exa mple.com/', 'http://%00/', 'https://example.com/{{secret.NOPE}}', 'https://{{uuid}}/',
  'https://example.com:99999/', 'https://example.com/\u0000',
  'csk_', 'job_', 'exe_', 'sec_', 'chn_', 'rul_', 'mon_', 'dlv_', 'wsp_',
];

const hostileNumbers = [-1, 0, -0, 0.5, 1.5, 2 ** 31, 2 ** 32 + 1, 2 ** 53, 2 ** 53 + 2, -(2 ** 53), 1e21, 1e308, -1e308, 5e-324, Number.MAX_SAFE_INTEGER, 99, 100, 101, 599, 600, 7201, 31536001];

/** A value of a wrong type, out of range, or hostile text: what replaces a field in a mutated body. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom<unknown>(...hostileStrings) },
  { weight: 3, arbitrary: fc.constantFrom<unknown>(...hostileNumbers) },
  { weight: 2, arbitrary: fc.constantFrom<unknown>(null, true, false, [], {}, [null], [[]], { '': null }) },
  { weight: 3, arbitrary: anyText() },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom(63, 64, 65, 99, 100, 101, 150).map((n) => new Nested(n)) },
  { weight: 1, arbitrary: fc.constantFrom(201, 501, 2049, 4001, 8193, 65_537, 70_000).chain((n) => fc.constantFrom('x', 'é', '\u0000', '💥').map((u) => new Repeated(u, n))) },
  { weight: 1, arbitrary: fc.constantFrom(51, 101, 1001).map((n) => Array.from({ length: n }, (_, i) => 200 + (i % 300))) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom<unknown>(0, 'x', '{{uuid}}', '{{nope}}', null, {}), fc.constantFrom(10_000, 150_000)).map(([item, n]) => new Many(item, n)) },
);

/** Names of object keys a body should not have: prototype keys, NUL, lone surrogates, near-misses of real fields. */
export const hostileKey = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', '', ' ', '\u0000', 'a\u0000b', '\ud800', 'unknown_field', 'Name', 'KIND', 'name ', '$where', 'x'.repeat(300)),
  anyText(16),
);

/** Percent-encodes text for a URL: each code point, a lone surrogate as the bytes UTF-8 would give it (invalid there). */
export function encodeText(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    out += code >= 0xd800 && code <= 0xdfff ? `%${(0xe0 | (code >> 12)).toString(16)}%${(0x80 | ((code >> 6) & 0x3f)).toString(16)}%${(0x80 | (code & 0x3f)).toString(16)}`.toUpperCase() : encodeURIComponent(char);
  }
  return out;
}

/** Pieces of a path or query already in URL form: broken percent-encoding, NUL, traversal, very long. */
export const rawUrlPieces = [
  '%00', '%00x', 'a%00', '..', '%2e%2e', '.', '%2F', '%2f..%2f', '%5C', '%ZZ', '%', '%E0%A4%A', '%ED%A0%80', '%C0%AF', '%FF', '%F0%9F%92%A5',
  '%20', '+', '*', '~', '%25', '%3F', '%23', ';', ',', '%0A', '%0D%0A', 'null', 'undefined', '0', '-1', '1e999', '__proto__', 'constructor',
  '%27%20OR%201%3D1--', 'x'.repeat(4000), '%41'.repeat(1500),
];
