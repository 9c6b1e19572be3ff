import zlib from 'node:zlib';

/** The content encodings the client decodes: the ones it announces (ACCEPT_ENCODING). */
export type Encoding = 'gzip' | 'deflate' | 'br';
const ENCODINGS: ReadonlySet<string> = new Set<Encoding>(['gzip', 'deflate', 'br']);

/**
 * The encoding to decode the response with, or null to read it as sent: only an exact
 * (case-insensitive) gzip, deflate or br (a list of codings is read as sent), and never for responses that cannot carry a body
 * (RFC 9110: HEAD, 1xx, 204, 205, 304), whose content-encoding only describes the resource.
 */
export function responseEncoding(method: string, status: number, contentEncoding: string | undefined): Encoding | null {
  if (method === 'HEAD' || (status >= 100 && status < 200) || status === 204 || status === 205 || status === 304) return null;
  const encoding = (contentEncoding ?? '').toLowerCase();
  return ENCODINGS.has(encoding) ? (encoding as Encoding) : null;
}

type Decoder = zlib.Unzip | zlib.InflateRaw | zlib.BrotliDecompress;

/**
 * A decoder for the body, picked on its first bytes as decompress-response did: "deflate" is
 * sometimes sent as raw deflate (no zlib header, recognisable by bit 3 of the first byte being 0),
 * and gunzip-or-inflate (Unzip) tells gzip from zlib by their headers.
 */
function createDecoder(encoding: Encoding, first: Buffer): Decoder {
  if (encoding === 'br') return zlib.createBrotliDecompress();
  if (encoding === 'deflate' && (first[0] & 0x08) === 0) return zlib.createInflateRaw();
  return zlib.createUnzip();
}

export interface BodyHandlers {
  /** The body read to its end, or to `limit` bytes (`truncated`), whichever came first. */
  done(body: Buffer, truncated: boolean): void;
  /** The body did not decode. */
  fail(error: unknown): void;
}

/**
 * Collects a response body pushed to it chunk by chunk (`write`, then `end`), decoded when
 * `encoding` is set, keeping at most `limit` (decoded) bytes, so a small compressed answer
 * cannot expand into unbounded memory. Calls exactly one handler, at most once. `stop` stops
 * reading and frees the decoder; the caller aborts the request (and with it the connection),
 * since only it knows whether the connection may be reused.
 */
export class BodyReader {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private stopped = false;
  private decoder: Decoder | undefined;

  constructor(
    private readonly encoding: Encoding | null,
    private readonly limit: number,
    private readonly handlers: BodyHandlers,
  ) {}

  write(chunk: Buffer): void {
    if (this.stopped) return;
    if (this.encoding === null) return this.take(chunk);
    if (this.decoder === undefined) {
      const decoder = createDecoder(this.encoding, chunk);
      decoder.on('data', (decoded: Buffer) => this.take(decoded));
      decoder.on('end', () => this.finish());
      decoder.on('error', (error) => this.fail(error));
      this.decoder = decoder;
    }
    this.decoder.write(chunk);
  }

  /** The body arrived whole. An empty one is not run through the decoder (zlib would call it truncated input). */
  end(): void {
    if (this.stopped) return;
    if (this.decoder) this.decoder.end();
    else this.finish();
  }

  stop(): void {
    this.stopped = true;
    this.decoder?.destroy();
  }

  private take(chunk: Buffer): void {
    if (this.stopped) return;
    const room = this.limit - this.size;
    if (chunk.length >= room) {
      this.chunks.push(chunk.subarray(0, room));
      this.size += room;
      this.stop();
      this.handlers.done(Buffer.concat(this.chunks, this.size), true);
      return;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
  }

  private finish(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.handlers.done(Buffer.concat(this.chunks, this.size), false);
  }

  private fail(error: unknown): void {
    if (this.stopped) return;
    this.stop();
    this.handlers.fail(error);
  }
}
