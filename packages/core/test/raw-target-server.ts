import net from 'node:net';
import { listenLocally } from './local-server.js';

/** One request as the raw target parsed it off a connection. */
export interface RawRequest {
  /** 1 for the first request the server parsed on any connection, 2 for the next, ... */
  seq: number;
  method: string;
  path: string;
  /** Header names lower-cased; a repeated name keeps its values joined with ", ". */
  headers: Record<string, string>;
  body: string;
}

export interface RawConnection {
  /** 1 for the first connection the server accepted, 2 for the next, ... */
  id: number;
  /** Every byte that arrived on the connection, as latin1 text. */
  bytes: string;
  /** The requests parsed off `bytes`, in order; each was answered before the next was read. */
  requests: RawRequest[];
  /** Whether the connection has closed. */
  closed: boolean;
}

/**
 * A target on a bare `net` server, so nothing between the wire and the test reframes what a
 * client sent: it records the bytes of every connection and parses them the way an HTTP/1.1
 * server does (a head up to the empty line, then exactly Content-Length bytes of body; no
 * chunked bodies), answering each request with 200 "answer to <METHOD> <path>" and keeping the
 * connection open. Bytes that do not parse as a request are recorded and left unanswered.
 */
export interface RawTargetServer {
  url: string;
  port: number;
  connections: RawConnection[];
  close(): Promise<void>;
}

function parseHead(head: string): Omit<RawRequest, 'body' | 'seq'> | null {
  const [start, ...lines] = head.split('\r\n');
  const line = /^([A-Z]+) (\S+) HTTP\/1\.[01]$/.exec(start);
  if (!line) return null;
  const headers: Record<string, string> = {};
  for (const text of lines) {
    const colon = text.indexOf(':');
    if (colon <= 0) return null;
    const name = text.slice(0, colon).toLowerCase();
    const value = text.slice(colon + 1).trim();
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  return { method: line[1], path: line[2], headers };
}

export async function startRawTargetServer(): Promise<RawTargetServer> {
  const connections: RawConnection[] = [];
  let parsed = 0;
  const server = net.createServer((socket) => {
    const connection: RawConnection = { id: connections.length + 1, bytes: '', requests: [], closed: false };
    connections.push(connection);
    socket.on('close', () => {
      connection.closed = true;
    });
    socket.on('error', () => undefined);
    let unread = '';
    let broken = false;
    socket.on('data', (chunk: Buffer) => {
      const text = chunk.toString('latin1');
      connection.bytes += text;
      if (broken) return;
      unread += text;
      for (;;) {
        const end = unread.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = parseHead(unread.slice(0, end));
        if (head === null || head.headers['transfer-encoding'] !== undefined) {
          broken = true;
          return;
        }
        const length = Number(head.headers['content-length'] ?? '0');
        if (unread.length < end + 4 + length) return;
        const body = unread.slice(end + 4, end + 4 + length);
        unread = unread.slice(end + 4 + length);
        connection.requests.push({ seq: ++parsed, ...head, body });
        const answer = `answer to ${head.method} ${head.path}`;
        socket.write(`HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: ${answer.length}\r\nConnection: keep-alive\r\n\r\n${answer}`);
      }
    });
  });
  return { ...(await listenLocally(server)), connections };
}

/**
 * A raw target of its own for each test of the enclosing describe block (or file), so no
 * connection outlives the test that opened it; the returned function gives the current one.
 */
export function useRawTargetServer(): () => RawTargetServer {
  let server: RawTargetServer | undefined;
  beforeEach(async () => {
    server = await startRawTargetServer();
  });
  afterEach(async () => {
    await server?.close();
  });
  return () => {
    if (!server) throw new Error('the raw target starts before each test');
    return server;
  };
}
