import fc from 'fast-check';
import http from 'node:http';
import type { FuzzFixtures, Ref, Resource } from './fuzz-fixtures.js';
import { anyText, encodeText, hostileStrings, rawUrlPieces, Repeated } from './hostile-values.js';
import { QUERY_VALUES, type RouteBody } from './route-bodies.js';

/**
 * One fuzzed HTTP request, generated whole so that fast-check can shrink it: the method (mostly the
 * route's own), the path with each parameter filled in, a query string, which credential it
 * carries, a few headers, and a body. A path parameter naming a real object names its fixture
 * slot, resolved to the slot's current id when the request is sent.
 */
export interface FuzzRequest {
  method: string;
  path: PathPart[];
  query: string;
  credential: 'route' | 'none' | 'wrong' | 'swapped';
  headers: Record<string, string>;
  body: FuzzBody;
}

/** A segment of the path: literal text (already URL-encoded), or a fixture's id, perhaps changed. */
export type PathPart = { text: string } | { ref: Ref; change: 'none' | 'upper' | string };

export type FuzzBody =
  | { type: 'none' }
  | { type: 'json'; value: unknown }
  | { type: 'raw'; contentType: string | null; encoding: string | null; content: string | number[] | Repeated };

/** The segment before a path parameter says what it names (`/jobs/:id`, `/notification-rules/:rule_id`, the console's `/rules/:ruleId`). */
const RESOURCE_AFTER: Record<string, Resource> = {
  jobs: 'job',
  executions: 'execution',
  dlq: 'execution',
  'dead-letters': 'execution',
  channels: 'channel',
  rules: 'rule',
  secrets: 'secret',
  'host-limits': 'host_limit',
  'notification-channels': 'channel',
  'notification-deliveries': 'delivery',
  monitors: 'monitor',
  'notification-rules': 'rule',
  workspaces: 'workspace',
  tokens: 'api_token',
  triggers: 'trigger_token',
  resume: 'resume_token',
  approvals: 'approval_token',
  ping: 'ping_token',
  snooze: 'snooze_token',
  tags: 'tag',
  'status-pages': 'status_page',
  badges: 'badge_token',
  status: 'status_token',
};

/** A path parameter: a real id (this workspace's or another's), a real id made wrong, or hostile text. */
function pathParameter(fixtures: FuzzFixtures, resource: Resource, ownOnly: boolean): fc.Arbitrary<PathPart> {
  const refs = fixtures.refsOf(resource);
  const own = refs.filter((r) => r.owner === 'own');
  const other = refs.filter((r) => r.owner === 'other');
  if (ownOnly && own.length > 0) return fc.constantFrom(...own).map((ref) => ({ ref, change: 'none' }));
  const choices: fc.WeightedArbitrary<PathPart>[] = [{ weight: 2, arbitrary: fc.constantFrom(...rawUrlPieces).map((text) => ({ text })) }];
  choices.push({ weight: 2, arbitrary: fc.oneof(anyText(), fc.constantFrom(...hostileStrings)).filter((t) => t !== '').map((t) => ({ text: encodeText(t) })) });
  for (const [mine, weight] of [[own, 6], [other, 3]] as const) {
    if (mine.length === 0) continue;
    choices.push({ weight, arbitrary: fc.constantFrom(...mine).map((ref) => ({ ref, change: 'none' })) });
    choices.push({ weight: 1, arbitrary: fc.tuple(fc.constantFrom(...mine), fc.constantFrom('upper', '%00', '%20', '/', '.', '/..', 'x', '%2F..')).map(([ref, change]) => ({ ref, change })) });
  }
  return fc.oneof(...choices);
}

export function pathOf(pattern: string, fixtures: FuzzFixtures, ownOnly: boolean): fc.Arbitrary<PathPart[]> {
  const segments = pattern.split('/');
  return fc.tuple(
    ...segments.map((segment, i) => {
      if (!segment.startsWith(':')) return fc.constant<PathPart>({ text: segment });
      // A ping's exit status names no resource: valid ones, the edges and what is none.
      if (segment === ':exit_status') return fc.constantFrom<PathPart>(...['0', '3', '255', '256', '-1', '1e2', '00', '99999999999999999999', 'abc', '%00'].map((text) => ({ text })));
      const resource = RESOURCE_AFTER[segments[i - 1]];
      if (!resource) throw new Error(`the fuzzer does not know what ${segment} of ${pattern} names: add its segment to RESOURCE_AFTER`);
      return pathParameter(fixtures, resource, ownOnly);
    }),
  );
}

/** What the path's parameters name, for refreshing them before a request. */
export function resourcesIn(pattern: string): Resource[] {
  const segments = pattern.split('/');
  return segments.flatMap((segment, i) => (segment.startsWith(':') ? [RESOURCE_AFTER[segments[i - 1]]] : []));
}

/** The path as sent, and whether it names another workspace's object as it is. */
export function resolvePath(parts: PathPart[], fixtures: FuzzFixtures): { path: string; namesOthers: boolean } {
  const texts = parts.map((part) => {
    if ('text' in part) return part.text;
    const id = encodeText(fixtures.valueOf(part.ref));
    return part.change === 'none' ? id : part.change === 'upper' ? id.toUpperCase() : `${id}${part.change}`;
  });
  return { path: texts.join('/'), namesOthers: parts.some((p) => 'ref' in p && p.ref.owner === 'other' && p.change === 'none') };
}

const queryValue = (key: string) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...(Object.hasOwn(QUERY_VALUES, key) ? QUERY_VALUES[key] : ['1'])).map(encodeText) },
    { weight: 2, arbitrary: fc.constantFrom(...hostileStrings).map(encodeText) },
    { weight: 1, arbitrary: fc.constantFrom('0', '101', '-1', '1.5', '1e2', '%201', '+1', '9007199254740993', '99999999999999999999', 'a'.repeat(201)) },
    { weight: 1, arbitrary: fc.constantFrom(...rawUrlPieces) },
    { weight: 1, arbitrary: anyText().map(encodeText) },
  );

/** Every list filter with valid and hostile values; keys may repeat (the value is then a list) or come without `=`. */
const queryString: fc.Arbitrary<string> = fc
  .array(
    fc
      .constantFrom(...Object.keys(QUERY_VALUES), '__proto__', 'constructor', 'toString', '', 'limit[]', '%00')
      .chain((key) => fc.tuple(fc.constant(key), fc.option(queryValue(key), { freq: 8 }))),
    { maxLength: 4 },
  )
  .map((pairs) => pairs.map(([key, value]) => (value === null ? key : `${key}=${value}`)).join('&'));

const CONTENT_TYPES = [
  null, 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'application/octet-stream',
  'application/json', 'application/json; charset=utf-16', 'application/json; charset=latin1', 'application/json; charset=utf-8',
  'application/vnd.api+json', 'application/merge-patch+json', 'application/json;;', 'text/html', '*/*', 'json', 'application/x-www-form-urlencoded; charset=utf-16',
];

const RAW_TEXTS = [
  '', '{', '{"a":', 'null', '[]', '""', '{"a":1}{"b":2}', '\ufeff{}', '{"a":1,}', "{'a':1}", 'NaN', '1e999', '-', '"\\ud800"', '{"\\u0000":1}',
  '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}', 'a=1&b=2', 'comment=%00', 'comment=ok', 'comment=%ZZ', 'a[b]=1', '\u0000',
  '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--',
];

const rawContent: fc.Arbitrary<string | number[] | Repeated> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...RAW_TEXTS) },
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => Array.from(bytes)) },
  { weight: 2, arbitrary: anyText(64) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: fc.constantFrom(new Repeated('a=1&', 1001), new Repeated('x', 70_000), new Repeated('[', 100_000), new Repeated(' ', 1_048_577)) },
);

const rawBody: fc.Arbitrary<FuzzBody> = fc
  .tuple(fc.constantFrom(...CONTENT_TYPES), fc.option(fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'x-unknown', 'gzip, deflate'), { freq: 6 }), rawContent)
  .map(([contentType, encoding, content]) => ({ type: 'raw', contentType, encoding, content }));

function bodyOf(structured: fc.Arbitrary<unknown> | null, weights = { structured: 12, json: 3, none: 2, raw: 3 }): fc.Arbitrary<FuzzBody> {
  const json = (value: unknown): FuzzBody => ({ type: 'json', value });
  const choices: fc.WeightedArbitrary<FuzzBody>[] = [
    { weight: structured ? weights.structured : 0, arbitrary: (structured ?? fc.constant(null)).map(json) },
    { weight: weights.json, arbitrary: fc.jsonValue().map(json) },
    { weight: weights.none, arbitrary: fc.constant<FuzzBody>({ type: 'none' }) },
    { weight: weights.raw, arbitrary: rawBody },
  ];
  return fc.oneof(...choices.filter((c) => c.weight > 0));
}

const headers = fc.record(
  {
    'Idempotency-Key': fc.constantFrom('key-1', 'key-2', '', ' ', 'k'.repeat(256), 'é', 'a\tb'),
    'X-Webhook-Secret': fc.constantFrom('fuzz-webhook-secret', 'wrong', '', 's'.repeat(1000)),
    Accept: fc.constantFrom('application/json', '*/*', 'text/plain'),
    'X-Request-Id': fc.constantFrom('req-1', 'a:b.c_d-e', '', ' ', 'x'.repeat(129), 'é', '<script>', '../../etc'),
  },
  { requiredKeys: [] },
);

/**
 * Requests for the route `method pattern`, with bodies from `body` (see route-bodies.ts). Most
 * change one thing only, so that the rest is valid and the request gets past the checks before
 * the one it is aimed at: the body (on a live object of the workspace), the path, the query; the
 * others change everything at once.
 */
export function requestsFor(method: string, pattern: string, fixtures: FuzzFixtures, body: RouteBody): fc.Arbitrary<FuzzRequest> {
  const structured = body === 'none' ? null : body(fixtures.ids());
  const valid = { method: fc.constant(method), credential: fc.constant('route' as const), headers: fc.constant({}), query: fc.constant('') };
  const bodyFirst = fc.record({ ...valid, path: pathOf(pattern, fixtures, true), body: bodyOf(structured, { structured: 20, json: 2, none: 1, raw: 2 }) });
  const pathFirst = fc.record({ ...valid, path: pathOf(pattern, fixtures, false), body: bodyOf(structured, { structured: 1, json: 0, none: 1, raw: 0 }) });
  const queryFirst = fc.record({ ...valid, path: pathOf(pattern, fixtures, true), query: queryString, body: fc.constant<FuzzBody>({ type: 'none' }) });
  const anything = fc.record({
    method: fc.oneof({ weight: 4, arbitrary: fc.constant(method) }, { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS') }),
    path: pathOf(pattern, fixtures, false),
    query: fc.oneof({ weight: 1, arbitrary: fc.constant('') }, { weight: 2, arbitrary: queryString }),
    credential: fc.oneof({ weight: 3, arbitrary: fc.constant('route' as const) }, { weight: 1, arbitrary: fc.constantFrom('none' as const, 'wrong' as const, 'swapped' as const) }),
    headers,
    body: bodyOf(structured),
  });
  return fc.oneof(
    { weight: 5, arbitrary: bodyFirst },
    { weight: 2, arbitrary: pathFirst },
    { weight: 2, arbitrary: queryFirst },
    { weight: 3, arbitrary: anything },
  );
}

export interface Credentials {
  api: string;
  admin: string;
}

function authorization(req: FuzzRequest, path: string, tokens: Credentials): string | null {
  const admin = path.startsWith('/admin/');
  switch (req.credential) {
    case 'none':
      return null;
    case 'wrong':
      return `Bearer csk_${'x'.repeat(43)}`;
    case 'swapped':
      return `Bearer ${admin ? tokens.api : tokens.admin}`;
    default:
      return admin ? `Bearer ${tokens.admin}` : `Bearer ${tokens.api}`;
  }
}

/** The request's body as bytes on the wire, and its headers. */
function wireBody(body: FuzzBody): { bytes: Buffer; headers: Record<string, string> } | null {
  if (body.type === 'none') return null;
  if (body.type === 'json') {
    const text = JSON.stringify(body.value);
    return text === undefined ? null : { bytes: Buffer.from(text), headers: { 'Content-Type': 'application/json' } };
  }
  const content = body.content;
  const bytes = Array.isArray(content) ? Buffer.from(content) : Buffer.from(String(content));
  return { bytes, headers: { ...(body.contentType ? { 'Content-Type': body.contentType } : {}), ...(body.encoding ? { 'Content-Encoding': body.encoding } : {}) } };
}

/** An answer as the fuzz test reads it. */
export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The media type, without parameters. */
  type: string;
  text: string;
  /** The body parsed, when it is JSON. */
  body: unknown;
}

/**
 * Sends `req`, as `path`, to the app listening on `port`, with Node's own client: the bytes as
 * generated, and an answer that arrives while the body is still being sent (a 415 or a 413 before
 * the body is read) counts as the answer. No answer within 10 s fails the run like a 5xx would.
 */
export function send(port: number, req: FuzzRequest, path: string, tokens: Credentials): Promise<Answer> {
  const body = wireBody(req.body);
  const auth = authorization(req, path, tokens);
  const headers: Record<string, string> = { ...req.headers, ...body?.headers, ...(auth ? { Authorization: auth } : {}) };
  if (body) headers['Content-Length'] = String(body.bytes.length);
  // A connection of its own, kept alive as most clients keep theirs: told to close, the server
  // closes it while a body it did not need is still arriving, and the reset can cost the client an
  // answer that was sent (the operating system's doing, not the app's).
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  return new Promise<Answer>((resolve, reject) => {
    let answered = false;
    const outgoing = http.request({ host: '127.0.0.1', port, method: req.method, path: req.query ? `${path}?${req.query}` : path, headers, agent }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const type = (res.headers['content-type'] ?? '').split(';')[0].trim();
        let parsed: unknown;
        try {
          parsed = type === 'application/json' ? JSON.parse(text) : undefined;
        } catch {
          parsed = undefined;
        }
        resolve({ status: res.statusCode!, headers: res.headers, type, text, body: parsed });
      });
    });
    outgoing.setTimeout(10_000, () => outgoing.destroy(new Error('no answer within 10 s')));
    // Writing fails once the server has answered and closed: the answer, if one comes, is what counts.
    outgoing.on('error', (error) => {
      if (!answered) setTimeout(() => answered || reject(error), 1_000);
    });
    outgoing.end(body?.bytes);
  }).finally(() => agent.destroy());
}

/** The request in words, for a failure's message. */
export function describeRequest(req: FuzzRequest, path: string): string {
  const body = wireBody(req.body);
  const shown = body ? body.bytes.subarray(0, 600).toString('utf8') + (body.bytes.length > 600 ? `... (${body.bytes.length} bytes)` : '') : '(none)';
  return [
    `${req.method} ${req.query ? `${path}?${req.query}` : path}`,
    `credential: ${req.credential}; headers: ${JSON.stringify({ ...req.headers, ...body?.headers })}`,
    `body: ${shown}`,
  ].join('\n');
}
