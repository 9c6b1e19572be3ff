import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { useRawTargetServer } from '../../test/raw-target-server.js';
import { startTargetServer, type TargetServer } from '../../test/target-server.js';
import { waitFor } from '../../test/wait-for.js';
import { createHttpClient, MAX_BODY_BYTES, type HttpClient, type HttpResult, type OutboundRequest } from './http-client.js';

// The outbound client against local node:http servers (docs/SECURITY.md: no redirects, one hard
// time limit, a 1 MiB read cap, private targets refused at connect time unless allowed).

let target: TargetServer;
const client = createHttpClient({ allowPrivateTargets: true });
const guarded = createHttpClient({ allowPrivateTargets: false });

beforeAll(async () => {
  target = await startTargetServer();
});
afterAll(async () => {
  await Promise.all([client.close(), guarded.close()]);
  await target.close();
});
beforeEach(() => {
  target.received.length = 0;
  target.handle((_req, res) => void res.end('ok'));
});

function send(overrides: Partial<OutboundRequest> & { path?: string }, via = client): Promise<HttpResult> {
  const { path = '/', ...request } = overrides;
  return via.send({ url: `${target.url}${path}`, workspaceId: 'ws_test', method: 'GET', headers: {}, body: null, timeoutMs: 5_000, ...request });
}

function asResponse(result: HttpResult): Extract<HttpResult, { kind: 'response' }> {
  if (result.kind !== 'response') throw new Error(`expected a response, got ${result.errorClass}: ${result.message}`);
  return result;
}

function asError(result: HttpResult): Extract<HttpResult, { kind: 'error' }> {
  if (result.kind !== 'error') throw new Error(`expected an error, got HTTP ${result.statusCode}`);
  return result;
}

/** Runs `use` with a client of its own (private targets allowed), closed afterwards. */
async function withClient(options: Omit<Parameters<typeof createHttpClient>[0], 'allowPrivateTargets'>, use: (own: HttpClient) => Promise<void>): Promise<void> {
  const own = createHttpClient({ allowPrivateTargets: true, ...options });
  try {
    await use(own);
  } finally {
    await own.close();
  }
}

/** A port nothing listens on: one the OS just handed out and took back. */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('responses', () => {
  it('returns status, body and headers: the kept ones, and all of them with repeats joined', async () => {
    target.handle((_req, res) => {
      res.statusCode = 201;
      res.setHeader('Content-Type', 'application/json');
      res.setHeader('X-Request-Id', 'req-1');
      res.setHeader('X-Custom', 'custom');
      res.setHeader('Set-Cookie', ['a=1', 'b=2']);
      res.end('{"hello":"world"}');
    });
    const result = asResponse(await send({ path: '/hook?x=1', headers: { 'X-Sent': 'yes' } }));
    expect(result.statusCode).toBe(201);
    expect(result.body.toString()).toBe('{"hello":"world"}');
    expect(result.truncated).toBe(false);
    expect(result.latencyMs).toBeGreaterThanOrEqual(0);
    expect(result.headers).toEqual({ 'content-type': 'application/json', 'content-length': '17', 'x-request-id': 'req-1', date: expect.any(String) });
    expect(result.allHeaders).toMatchObject({ 'x-custom': 'custom', 'set-cookie': 'a=1, b=2', 'content-type': 'application/json' });
    expect(target.received).toHaveLength(1);
    expect(target.received[0]).toMatchObject({ method: 'GET', url: '/hook?x=1', body: '' });
    expect(target.received[0].headers['x-sent']).toBe('yes');
    // As got sent it: its accept-encoding, and no body headers for a bodiless GET.
    expect(target.received[0].headers['accept-encoding']).toBe('gzip, deflate, br');
    expect(target.received[0].headers['content-length']).toBeUndefined();
    expect(target.received[0].headers['transfer-encoding']).toBeUndefined();
  });

  it('keeps an accept-encoding the caller set, in any spelling', async () => {
    await send({ headers: { 'Accept-Encoding': 'identity' } });
    expect(target.received[0].headers['accept-encoding']).toBe('identity');
  });

  it('does not follow a redirect: the 3xx is the response', async () => {
    target.handle((req, res) => {
      if (req.url === '/moved') {
        res.writeHead(302, { Location: '/elsewhere' });
        res.end('moved');
      } else res.end('followed');
    });
    const result = asResponse(await send({ path: '/moved' }));
    expect(result.statusCode).toBe(302);
    expect(result.headers.location).toBe('/elsewhere');
    expect(result.body.toString()).toBe('moved');
    expect(target.received.map((r) => r.url)).toEqual(['/moved']);
  });

  it('reuses a kept-alive connection for the next request', async () => {
    const ports = new Set<number>();
    target.handle((_req, res) => void res.end(String(res.socket?.remotePort)));
    for (let i = 0; i < 3; i++) ports.add(Number(asResponse(await send({})).body.toString()));
    expect(ports.size).toBe(1);
  });
});

describe('request bodies', () => {
  it('sends a POST body with its content-length', async () => {
    const body = '{"name":"café"}';
    asResponse(await send({ method: 'POST', headers: { 'Content-Type': 'application/json' }, body }));
    expect(target.received[0]).toMatchObject({ method: 'POST', body });
    expect(target.received[0].headers['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(target.received[0].headers['content-type']).toBe('application/json');
  });

  it('sends a body on GET when there is one', async () => {
    asResponse(await send({ method: 'GET', body: 'query=1' }));
    expect(target.received[0]).toMatchObject({ method: 'GET', body: 'query=1' });
    expect(target.received[0].headers['content-length']).toBe('7');
  });

  it('sends no body when it is null, even on POST', async () => {
    asResponse(await send({ method: 'POST', body: null }));
    expect(target.received[0]).toMatchObject({ method: 'POST', body: '' });
    expect(target.received[0].headers['content-length']).toBe('0');
  });
});

describe('the time limit', () => {
  it('ends a body that trickles in forever with TIMEOUT and drops the connection', async () => {
    let closed = false;
    let chunks = 0;
    target.handle((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      const drip = setInterval(() => {
        chunks++;
        res.write('x');
      }, 50);
      res.on('close', () => {
        clearInterval(drip);
        closed = true;
      });
    });
    const result = asError(await send({ timeoutMs: 400 }));
    expect(result.errorClass).toBe('TIMEOUT');
    expect(result.message).toBe('no complete response within 400 ms');
    expect(result.latencyMs).toBeGreaterThanOrEqual(395);
    expect(result.latencyMs).toBeLessThan(2_000);
    // Headers and a few chunks arrived, and the limit still held.
    expect(chunks).toBeGreaterThan(2);
    await waitFor(() => closed, { timeoutMs: 2_000, what: 'the server to see the connection close' });
  });

  it('ends a request the server never answers with TIMEOUT and drops the connection', async () => {
    let closed = false;
    target.handle((_req, res) => {
      res.on('close', () => (closed = true));
    });
    const result = asError(await send({ timeoutMs: 300 }));
    expect(result.errorClass).toBe('TIMEOUT');
    expect(result.latencyMs).toBeGreaterThanOrEqual(295);
    await waitFor(() => closed, { timeoutMs: 2_000, what: 'the server to see the connection close' });
  });
});

describe('transport errors', () => {
  it('reports a refused connection as CONNECTION_ERROR', async () => {
    const port = await closedPort();
    const result = asError(await client.send({ url: `http://127.0.0.1:${port}/`, workspaceId: 'ws_test', method: 'GET', headers: {}, body: null, timeoutMs: 5_000 }));
    expect(result.errorClass).toBe('CONNECTION_ERROR');
    expect(result.message).toContain('ECONNREFUSED');
  });

  it('reports a connection dropped mid-body as CONNECTION_ERROR', async () => {
    target.handle((_req, res) => {
      res.writeHead(200, { 'Content-Length': '100' });
      res.write('only ten b');
      setTimeout(() => res.destroy(), 50);
    });
    const result = asError(await send({}));
    expect(result).toMatchObject({ errorClass: 'CONNECTION_ERROR', message: 'The server aborted pending request' });
  });

  it.each([
    ['not a URL', 'not a url'],
    ['an unsupported protocol', 'ftp://example.com/file'],
  ])('resolves %s to an error result instead of throwing', async (_what, url) => {
    const result = asError(await client.send({ url, workspaceId: 'ws_test', method: 'GET', headers: {}, body: null, timeoutMs: 5_000 }));
    expect(result.errorClass).toBe('CONNECTION_ERROR');
    expect(result.message).toMatch(/^(Invalid URL|Unsupported protocol: ftp:)$/);
  });

  it('resolves a header value that is not valid HTTP to an error result', async () => {
    const result = asError(await send({ headers: { 'X-Bad': 'a\r\nInjected: yes' } }));
    expect(result.errorClass).toBe('CONNECTION_ERROR');
    expect(target.received).toHaveLength(0);
  });

  it.each([
    ['CR LF', 'token\r\nX-Injected: yes'],
    ['a lone LF', 'token\nX-Injected: yes'],
    ['NUL', 'tok\u0000en'],
  ])('refuses a header value with %s (a rendered secret) without sending anything or quoting the value', async (_what, value) => {
    const result = asError(await send({ method: 'POST', headers: { 'X-Api-Key': value, 'X-Fine': 'yes' }, body: 'x' }));
    expect(result).toMatchObject({ errorClass: 'CONNECTION_ERROR', message: expect.stringMatching(/^header "X-Api-Key" cannot be sent: its value holds CR, LF, NUL/) });
    expect(result.message).not.toContain('token');
    expect(target.received).toHaveLength(0);
  });

  it('reports a connection closed before any response as CONNECTION_ERROR', async () => {
    target.handle((_req, res) => void res.socket?.destroy());
    const result = asError(await send({}));
    expect(result).toMatchObject({ errorClass: 'CONNECTION_ERROR', message: 'socket hang up' });
  });

  it.each([
    ['without the guard', () => client],
    ['through the guard', () => guarded],
  ])('reports a name that does not resolve as DNS_ERROR, %s', async (_what, via) => {
    const result = asError(await via().send({ url: 'http://no-such-host.invalid/', workspaceId: 'ws_test', method: 'GET', headers: {}, body: null, timeoutMs: 5_000 }));
    expect(result.errorClass).toBe('DNS_ERROR');
    expect(result.message).toMatch(/no-such-host\.invalid/);
  });

  it('reports TLS spoken to a server that does not speak it as TLS_ERROR', async () => {
    const result = asError(await client.send({ url: `https://127.0.0.1:${target.port}/`, workspaceId: 'ws_test', method: 'GET', headers: {}, body: null, timeoutMs: 5_000 }));
    expect(result.errorClass).toBe('TLS_ERROR');
  });
});

describe('the read cap', () => {
  it('stops at 1 MiB and marks the body truncated', async () => {
    const big = Buffer.alloc(2 * MAX_BODY_BYTES);
    for (let i = 0; i < big.length; i++) big[i] = i % 251;
    target.handle((_req, res) => void res.end(big));
    const result = asResponse(await send({}));
    expect(result.truncated).toBe(true);
    expect(result.body.length).toBe(MAX_BODY_BYTES);
    expect(result.body.equals(big.subarray(0, MAX_BODY_BYTES))).toBe(true);
    expect(result.headers['content-length']).toBe(String(2 * MAX_BODY_BYTES));
  });
});

describe('compressed responses', () => {
  const text = 'a compressed answer '.repeat(50);

  it.each([
    ['gzip', zlib.gzipSync],
    ['deflate', zlib.deflateSync],
    ['br', zlib.brotliCompressSync],
  ] as const)('decodes %s and drops the headers that described the encoded bytes', async (encoding, compress) => {
    target.handle((_req, res) => {
      res.writeHead(200, { 'Content-Encoding': encoding, 'Content-Type': 'text/plain' });
      res.end(compress(Buffer.from(text)));
    });
    const result = asResponse(await send({}));
    expect(result.body.toString()).toBe(text);
    expect(result.truncated).toBe(false);
    expect(result.allHeaders['content-encoding']).toBeUndefined();
    expect(result.allHeaders['content-length']).toBeUndefined();
    expect(result.headers['content-type']).toBe('text/plain');
  });

  it('applies the 1 MiB cap to the decoded bytes', async () => {
    target.handle((_req, res) => {
      res.writeHead(200, { 'Content-Encoding': 'gzip' });
      res.end(zlib.gzipSync(Buffer.alloc(4 * MAX_BODY_BYTES, 'z')));
    });
    const result = asResponse(await send({}));
    expect(result.truncated).toBe(true);
    expect(result.body.length).toBe(MAX_BODY_BYTES);
    expect(result.body.every((byte) => byte === 'z'.charCodeAt(0))).toBe(true);
  });

  it('reports a body that does not decode as CONNECTION_ERROR', async () => {
    target.handle((_req, res) => {
      res.writeHead(200, { 'Content-Encoding': 'gzip' });
      res.end('this is not gzip');
    });
    const result = asError(await send({}));
    expect(result.errorClass).toBe('CONNECTION_ERROR');
  });
});

describe('private targets', () => {
  it.each([
    ['an IPv4 loopback literal', () => `http://127.0.0.1:${target.port}/`, /^127\.0\.0\.1 is not a public address$/],
    ['an IPv6 loopback literal', () => `http://[::1]:${target.port}/`, /^::1 is not a public address$/],
    ['a private literal', () => 'http://10.1.2.3/', /^10\.1\.2\.3 is not a public address$/],
    ['a name resolving to loopback', () => `http://localhost:${target.port}/`, /^localhost does not resolve to a public address$/],
  ])('refuses %s with BLOCKED_TARGET unless allowed', async (_what, url, message) => {
    const result = asError(await guarded.send({ url: url(), workspaceId: 'ws_test', method: 'GET', headers: {}, body: null, timeoutMs: 5_000 }));
    expect(result.errorClass).toBe('BLOCKED_TARGET');
    expect(result.message).toMatch(message);
    expect(target.received).toHaveLength(0);
  });

  it('lets the same loopback name through when private targets are allowed', async () => {
    const result = asResponse(await client.send({ url: `http://localhost:${target.port}/`, workspaceId: 'ws_test', method: 'GET', headers: {}, body: null, timeoutMs: 5_000 }));
    expect(result.statusCode).toBe(200);
  });
});

describe('informational responses', () => {
  it('skips a 103 Early Hints and returns the final response', async () => {
    target.handle((_req, res) => {
      res.writeEarlyHints({ link: '</style.css>; rel=preload' });
      res.end('final');
    });
    const result = asResponse(await send({}));
    expect(result).toMatchObject({ statusCode: 200, truncated: false });
    expect(result.body.toString()).toBe('final');
  });
});

describe('framing: the client frames every request from the body it sends', () => {
  const rawTarget = useRawTargetServer();

  const framing = {
    'Content-Length': '0',
    'Transfer-Encoding': 'chunked',
    Connection: 'close',
    'Keep-Alive': 'timeout=1',
    TE: 'trailers',
    Trailer: 'X-After',
    Upgrade: 'websocket',
    'Proxy-Connection': 'keep-alive',
    Expect: '100-continue',
    Host: 'victim.example',
  };

  it('drops framing and connection headers a stored job still holds, and sends the body as one request', async () => {
    const body = 'GET /smuggled HTTP/1.1\r\nHost: target\r\nContent-Length: 40\r\n\r\n';
    const result = asResponse(await client.send({ url: `${rawTarget().url}/hook`, workspaceId: 'ws_a', method: 'POST', headers: { ...framing, 'X-Kept': 'yes' }, body, timeoutMs: 5_000 }));
    expect(result.body.toString()).toBe('answer to POST /hook');
    const [connection] = rawTarget().connections;
    expect(connection.requests).toHaveLength(1);
    const [sent] = connection.requests;
    expect(sent.body).toBe(body);
    expect(sent.headers['content-length']).toBe(String(body.length));
    expect(sent.headers.host).toBe(`127.0.0.1:${rawTarget().port}`);
    expect(sent.headers['x-kept']).toBe('yes');
    for (const name of ['transfer-encoding', 'keep-alive', 'te', 'trailer', 'upgrade', 'proxy-connection', 'expect']) expect(sent.headers[name]).toBeUndefined();
    expect(sent.headers.connection).toBe('keep-alive');
    // Exactly one request's bytes on the wire: its head and its body, nothing after.
    expect(connection.bytes.endsWith(`\r\n\r\n${body}`)).toBe(true);
  });

  it('sends content-length 0 for a POST without a body, and none for a GET without one', async () => {
    await client.send({ url: `${rawTarget().url}/post`, workspaceId: 'ws_a', method: 'POST', headers: { 'Content-Length': '10' }, body: null, timeoutMs: 5_000 });
    await client.send({ url: `${rawTarget().url}/get`, workspaceId: 'ws_a', method: 'GET', headers: { 'Content-Length': '10' }, body: null, timeoutMs: 5_000 });
    const [post, get] = rawTarget().connections.flatMap((c) => c.requests).sort((a, b) => a.seq - b.seq);
    expect(post.headers['content-length']).toBe('0');
    expect(get.headers['content-length']).toBeUndefined();
  });
});

describe('connections per workspace', () => {
  const rawTarget = useRawTargetServer();

  const call = (via: typeof client, workspaceId: string, path = '/') =>
    via.send({ url: `${rawTarget().url}${path}`, workspaceId, method: 'GET', headers: {}, body: null, timeoutMs: 5_000 }).then(asResponse);
  /** The connection each request arrived on, in arrival order. */
  const connectionsOf = () => rawTarget().connections.flatMap((c) => c.requests.map((r) => ({ seq: r.seq, path: r.path, connection: c.id }))).sort((a, b) => a.seq - b.seq);

  it("never sends one workspace's request on a connection that carried another's, and reuses each workspace's own", () =>
    withClient({}, async (own) => {
      await call(own, 'ws_a', '/a1');
      await call(own, 'ws_b', '/b1');
      await call(own, 'ws_a', '/a2');
      await call(own, 'ws_b', '/b2');
      const seen = connectionsOf();
      expect(seen.map((r) => r.path)).toEqual(['/a1', '/b1', '/a2', '/b2']);
      expect(seen[0].connection).toBe(seen[2].connection);
      expect(seen[1].connection).toBe(seen[3].connection);
      expect(seen[0].connection).not.toBe(seen[1].connection);
      expect(own.stats()).toEqual({ pools: 2, idlePools: 2, openSockets: 2 });
    }));

  it('closes the pool idle the longest when there are more workspaces than maxPools', () =>
    withClient({ limits: { maxPools: 2 } }, async (own) => {
      await call(own, 'ws_a');
      await call(own, 'ws_b');
      await call(own, 'ws_c');
      expect(own.stats().pools).toBe(2);
      await waitFor(() => rawTarget().connections[0].closed, { what: "ws_a's connection to be closed" });
      // Its next request opens a new connection.
      await call(own, 'ws_a');
      expect(new Set(connectionsOf().map((r) => r.connection)).size).toBe(4);
    }));

  it('closes idle pools, the longest idle first, while the open sockets exceed maxOpenSockets', () =>
    withClient({ limits: { maxOpenSockets: 1 } }, async (own) => {
      await call(own, 'ws_a');
      expect(own.stats()).toEqual({ pools: 1, idlePools: 1, openSockets: 1 });
      // ws_b's socket makes two: when its request has ended, ws_a's idle pool is closed.
      await call(own, 'ws_b');
      expect(own.stats()).toEqual({ pools: 1, idlePools: 1, openSockets: 1 });
      await waitFor(() => rawTarget().connections[0].closed, { what: "ws_a's connection to be closed" });
      expect(rawTarget().connections[1].closed).toBe(false);
    }));

  it('closes a pool idle for idleMs, and its connection with it', () =>
    withClient({ limits: { idleMs: 100 } }, async (own) => {
      await call(own, 'ws_a');
      expect(own.stats().pools).toBe(1);
      await waitFor(() => own.stats().pools === 0 && rawTarget().connections[0].closed, { timeoutMs: 2_000, what: 'the idle pool to be closed' });
    }));
});

describe('the time limit while waiting for a connection', () => {
  it('times out a request queued behind a busy connection, and the connection still serves the next one', () =>
    withClient({ socketsPerOrigin: 1 }, async (one) => {
      let release: () => void = () => undefined;
      target.handle((req, res) => {
        if (req.url === '/slow') release = () => void res.end('slow');
        else res.end('fast');
      });
      const slow = send({ path: '/slow', timeoutMs: 5_000 }, one);
      await waitFor(() => target.received.length === 1, { what: 'the slow request to arrive' });
      const queued = asError(await send({ path: '/queued', timeoutMs: 200 }, one));
      expect(queued).toMatchObject({ errorClass: 'TIMEOUT', message: 'no complete response within 200 ms' });
      release();
      expect(asResponse(await slow).body.toString()).toBe('slow');
      expect(asResponse(await send({ path: '/after' }, one)).body.toString()).toBe('fast');
      expect(target.received.map((r) => r.url)).toEqual(['/slow', '/after']);
    }));
});
