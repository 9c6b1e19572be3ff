import { AppError } from '../errors/app-error.js';
import { parseInboundBody, sourceIp, triggerInput } from './inbound-request.js';

describe('parseInboundBody', () => {
  it.each([
    ['{"a":1}', 'application/json', { a: 1 }],
    ['\uFEFF[1,2]', 'application/json; charset=utf-8', [1, 2]],
    ['{"a":1}', 'application/vnd.github+json', { a: 1 }],
    ['a=1&a=2&b=x+y', 'application/x-www-form-urlencoded', { a: ['1', '2'], b: 'x y' }],
    ['plain', 'text/plain', 'plain'],
    ['<xml/>', 'application/xml', '<xml/>'],
    ['{"a":1}', undefined, { a: 1 }],
    ['not json', undefined, 'not json'],
  ])('reads %j sent as %s', (raw, type, expected) => {
    expect(parseInboundBody(Buffer.from(raw), type)).toEqual(expected);
  });

  it('reads no body as null and refuses JSON that does not parse', () => {
    expect(parseInboundBody(undefined, 'application/json')).toBeNull();
    expect(parseInboundBody(Buffer.alloc(0), undefined)).toBeNull();
    expect(() => parseInboundBody(Buffer.from('{"a":'), 'application/json')).toThrow(AppError);
  });

  it('refuses JSON nested deeper than 100 levels before parsing it, with or without a JSON content type', () => {
    const deep = Buffer.from('['.repeat(101) + ']'.repeat(101));
    for (const type of ['application/json', undefined]) {
      expect(() => parseInboundBody(deep, type)).toThrow(expect.objectContaining({ code: 'validation_failed', details: [{ path: '(body)', message: expect.stringContaining('100 levels') }] }));
    }
    expect(parseInboundBody(Buffer.from('['.repeat(100) + ']'.repeat(100)), 'application/json')).toHaveLength(1);
    // Text is text, however many brackets it holds.
    expect(parseInboundBody(deep, 'text/plain')).toBe(deep.toString());
  });
});

describe('triggerInput', () => {
  it('lower-cases header names, leaves the shared secret out and redacts the sender credentials', () => {
    const input = triggerInput({
      headers: { 'X-Webhook-Secret': 's', Authorization: 'Bearer t', cookie: 'a=b', 'proxy-authorization': 'p', 'X-Many': ['1', '2'], 'x-none': undefined },
      body: { a: 1 },
      query: { q: 'x' },
      remoteAddress: '::ffff:198.51.100.7',
      receivedAt: new Date('2030-01-01T00:00:00.000Z'),
    });
    expect(input).toEqual({
      headers: { authorization: '[redacted]', cookie: '[redacted]', 'proxy-authorization': '[redacted]', 'x-many': '1, 2' },
      body: { a: 1 },
      query: { q: 'x' },
      source_ip: '198.51.100.7',
      received_at: '2030-01-01T00:00:00.000Z',
    });
  });

  it('replaces NUL in the body, its keys, the query and the headers, since Postgres cannot store it', () => {
    const input = triggerInput({
      headers: { 'x-a': 'a\0b' },
      body: { 'k\0': ['v\0'] },
      query: { q: '\0' },
      remoteAddress: '198.51.100.7',
      receivedAt: new Date('2030-01-01T00:00:00.000Z'),
    });
    expect(input).toMatchObject({ headers: { 'x-a': 'a\uFFFDb' }, body: { 'k\uFFFD': ['v\uFFFD'] }, query: { q: '\uFFFD' } });
    expect(JSON.stringify(input)).not.toContain('\\u0000');
  });

  it('keeps IPv6 peers as they are', () => {
    expect(sourceIp('2001:db8::1')).toBe('2001:db8::1');
    expect(sourceIp(undefined)).toBeNull();
  });
});
