import type http from 'node:http';
import zlib from 'node:zlib';

/** The content encodings decoded, as got's `decompress: true` (decompress-response) did on Node 20. */
type Encoding = 'gzip' | 'deflate' | 'br';
const ENCODINGS: ReadonlySet<string> = new Set<Encoding>(['gzip', 'deflate', 'br']);

/**
 * The encoding to decode the response with, or null to read it as sent. Like got: only an exact
 * (case-insensitive) gzip, deflate or br, and never for responses that cannot carry a body
 * (RFC 9110: HEAD, 1xx, 204, 205, 304), whose content-encoding only describes the resource.
 */
export function responseEncoding(method: string, response: http.IncomingMessage): Encoding | null {
  const status = response.statusCode ?? 0;
  if (method === 'HEAD' || (status >= 100 && status < 200) || status === 204 || status === 205 || status === 304) return null;
  const encoding = (response.headers['content-encoding'] ?? '').toLowerCase();
  return ENCODINGS.has(encoding) ? (encoding as Encoding) : null;
}

/**
 * A decoder for the body, picked on its first bytes as decompress-response did: "deflate" is
 * sometimes sent as raw deflate (no zlib header, recognisable by bit 3 of the first byte being 0),
 * and gunzip-or-inflate (Unzip) tells gzip from zlib by their headers.
 */
function createDecoder(encoding: Encoding, first: Buffer): zlib.Unzip | zlib.InflateRaw | zlib.BrotliDecompress {
  if (encoding === 'br') return zlib.createBrotliDecompress();
  if (encoding === 'deflate' && (first[0] & 0x08) === 0) return zlib.createInflateRaw();
  return zlib.createUnzip();
}

/** A body that stopped early: got reported it as ECONNRESET with this wording, which we keep. */
function serverAborted(): Error {
  return Object.assign(new Error('The server aborted pending request'), { code: 'ECONNRESET' });
}

export interface BodyHandlers {
  /** The body read to its end, or to `limit` bytes (`truncated`), whichever came first. */
  done(body: Buffer, truncated: boolean): void;
  /** Reading failed: the connection dropped mid-body or the body did not decode. */
  fail(error: unknown): void;
}

/**
 * Reads a response body, decoded when `encoding` is set, keeping at most `limit` (decoded) bytes,
 * so a small compressed answer cannot expand into unbounded memory. Calls exactly one handler, at
 * most once. Returns `stop`, which stops reading and frees the decoder; the caller destroys the
 * request (and with it the socket), since only it knows whether the connection may be reused.
 */
export function readBody(response: http.IncomingMessage, encoding: Encoding | null, limit: number, handlers: BodyHandlers): () => void {
  const chunks: Buffer[] = [];
  let size = 0;
  let stopped = false;
  let decoder: zlib.Unzip | zlib.InflateRaw | zlib.BrotliDecompress | undefined;

  const stop = () => {
    stopped = true;
    decoder?.destroy();
  };
  const fail = (error: unknown) => {
    if (stopped) return;
    stop();
    handlers.fail(error);
  };
  const end = () => {
    if (stopped) return;
    stopped = true;
    handlers.done(Buffer.concat(chunks, size), false);
  };
  const take = (chunk: Buffer) => {
    if (stopped) return;
    const room = limit - size;
    if (chunk.length >= room) {
      chunks.push(chunk.subarray(0, room));
      size += room;
      stop();
      handlers.done(Buffer.concat(chunks, size), true);
      return;
    }
    chunks.push(chunk);
    size += chunk.length;
  };

  // Node destroys an unfinished response with "aborted" when the socket closes under it.
  response.on('error', (error) => fail(response.complete ? error : serverAborted()));
  if (encoding === null) {
    response.on('data', take);
    response.on('end', end);
    return stop;
  }
  response.on('data', (chunk: Buffer) => {
    if (stopped) return;
    if (decoder === undefined) {
      decoder = createDecoder(encoding, chunk);
      decoder.on('data', take);
      decoder.on('end', end);
      decoder.on('error', fail);
    }
    decoder.write(chunk);
  });
  // An empty body is not run through the decoder at all (zlib would call it truncated input).
  response.on('end', () => (decoder ? decoder.end() : end()));
  return stop;
}
