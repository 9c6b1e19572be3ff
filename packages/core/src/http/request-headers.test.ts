import { AppError, type ErrorDetail } from '../errors/app-error.js';
import { jobSchema, requestSchema } from '../jobs/job-schema.js';
import { validate } from '../validation/validate.js';
import { aCronJob } from '../../test/bodies.js';
import { requestHeadersSchema, SERVICE_SET_HEADERS } from './request-headers.js';

// Headers a request may not set (docs/SECURITY.md, "Outbound requests"): framing and connection
// headers, names that are not HTTP tokens, values with CR, LF, NUL or other control characters.

function refusal(headers: unknown): ErrorDetail[] {
  try {
    validate(jobSchema, aCronJob({ request: { headers } }), { context: { now: new Date() } });
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('validation_failed');
    expect((error as AppError).status).toBe(400);
    return (error as AppError).details ?? [];
  }
  throw new Error('the headers were accepted');
}

const accepted = (headers: Record<string, string>) => validate<{ request: { headers: Record<string, string> } }>(jobSchema, aCronJob({ request: { headers } }), { context: { now: new Date() } }).request.headers;

describe('headers the service sets itself', () => {
  const names = ['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'te', 'trailer', 'upgrade', 'proxy-connection', 'expect', 'host'];

  it('are exactly the framing and connection headers', () => {
    expect([...SERVICE_SET_HEADERS].sort()).toEqual([...names].sort());
  });

  const spellings = names.flatMap((name) => [
    name,
    name.toUpperCase(),
    name.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase()),
  ]);
  it.each(spellings)('refuses %s at request.headers.<name>', (name) => {
    expect(refusal({ [name]: '0' })).toEqual([{ path: `request.headers.${name}`, message: expect.stringMatching(/^may not be set: the service frames every request/) }]);
  });

  it('reports each refused header of one request, and the others are fine', () => {
    const details = refusal({ 'Content-Length': '0', 'Transfer-Encoding': 'chunked', 'X-Ok': 'yes', Host: 'evil.example' });
    expect(details.map((d) => d.path).sort()).toEqual(['request.headers.Content-Length', 'request.headers.Host', 'request.headers.Transfer-Encoding']);
  });
});

describe('header names', () => {
  it.each([
    ['a space', 'X Name'],
    ['a colon', 'X-Name:'],
    ['a pseudo-header', ':authority'],
    ['CR LF', 'X-A\r\nX-B'],
    ['a NUL', 'X-\u0000'],
    ['a non-ASCII letter', 'X-Café'],
    ['brackets', 'X-[a]'],
    ['an empty name', ''],
    ['a name of 201 characters', `X${'a'.repeat(200)}`],
  ])('refuses %s', (_what, name) => {
    expect(refusal({ [name]: 'v' })).toEqual([{ path: `request.headers.${name}`, message: expect.stringMatching(/^is not a valid header name: an HTTP token/) }]);
  });

  it("accepts every token character and names that only start like a refused one", () => {
    const headers = { "X-!#$%&'*+.^_`|~09az": 'v', 'Content-Type': 'text/plain', 'Content-Length-Hint': '1', Hostname: 'a', 'TE-X': 'b', Authorization: 'Bearer t' };
    expect(accepted(headers)).toEqual(headers);
  });
});

describe('header values', () => {
  it.each([
    ['CR', 'a\rb'],
    ['LF', 'a\nb'],
    ['CR LF starting a second header', 'v\r\nX-Injected: yes'],
    ['CR LF CR LF starting a body', 'v\r\n\r\nGET /smuggled HTTP/1.1'],
    ['NUL', 'a\u0000b'],
    ['a trailing LF', 'value\n'],
    ['another control character', 'a\u0001b'],
    ['DEL', 'a\u007fb'],
    ['a character beyond U+00FF', 'snow ☃'],
  ])('refuses a value with %s', (_what, value) => {
    expect(refusal({ 'X-Value': value })).toEqual([{ path: 'request.headers.X-Value', message: 'must not contain CR, LF, NUL or other control characters, or characters beyond U+00FF' }]);
  });

  it('never quotes the value in the message', () => {
    const [detail] = refusal({ 'X-Key': 'secret-ish\r\n' });
    expect(detail.message).not.toContain('secret-ish');
  });

  it('accepts tabs, spaces, Latin-1 letters and placeholders', () => {
    const headers = { 'X-Tab': 'a\tb', 'X-Latin': 'café', 'X-Key': '{{secret.API_KEY}}' };
    expect(accepted(headers)).toEqual(headers);
  });
});

describe('the reusable header schema', () => {
  it('is what requestSchema.extract("headers") gives, with an empty map as the default', () => {
    const extracted = requestSchema.extract('headers');
    expect(extracted.validate(undefined).value).toEqual({});
    expect(extracted.validate({ 'Content-Length': '0' }).error?.details[0]).toMatchObject({ path: ['Content-Length'], type: 'any.unknown' });
    expect(requestHeadersSchema.validate({ 'X-A': 'a\r\n' }).error?.details[0]).toMatchObject({ path: ['X-A'] });
  });

  it('keeps the count and length limits', () => {
    const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`X-${i}`, 'v']));
    expect(refusal(many).map((d) => d.path)).toEqual(['request.headers']);
    expect(refusal({ 'X-Long': 'v'.repeat(8193) }).map((d) => d.path)).toEqual(['request.headers.X-Long']);
  });
});
