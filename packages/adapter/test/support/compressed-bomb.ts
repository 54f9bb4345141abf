import { createServer } from 'node:http';
import { brotliCompressSync, constants, deflateSync, gzipSync } from 'node:zlib';
import { listenOnLoopback } from './listen-on-loopback.js';

/** The `Content-Encoding`s a bomb is sent with; several in a row are undone right to left. */
export type BombEncoding = 'gzip' | 'deflate' | 'br' | 'gzip, gzip';

/** What every bomb decodes to: 64 MiB, four times the default `maxReplyBytes`. */
export const BOMB_DECODED_BYTES = 64 * 1024 * 1024;

/** The most one read of a fetch body hands over (zlib's chunks are 16 KiB; fetch's reads up to 64 KiB). */
export const ONE_READ_BYTES = 64 * 1024;

const made = new Map<string, Buffer>();

/**
 * A body of `BOMB_DECODED_BYTES` of `fill` repeated, compressed with `encoding` by node:zlib:
 * 65 KB as gzip or deflate, tens of bytes as br or `gzip, gzip`. Made once per encoding and fill.
 */
export function compressedBomb(encoding: BombEncoding, fill = ' '): Buffer {
  const key = `${encoding}\u0000${fill}`;
  let body = made.get(key);
  if (body === undefined) {
    const plain = Buffer.alloc(BOMB_DECODED_BYTES, fill);
    body = compress(plain, encoding);
    made.set(key, body);
  }
  return body;
}

/** `plain` compressed with `encoding` by node:zlib (several in a row applied left to right). */
function compress(plain: Buffer, encoding: BombEncoding): Buffer {
  switch (encoding) {
    case 'gzip':
      return gzipSync(plain, { level: 9 });
    case 'deflate':
      return deflateSync(plain, { level: 9 });
    case 'br':
      return brotliCompressSync(plain, {
        params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_LGWIN]: 24 },
      });
    case 'gzip, gzip':
      return gzipSync(gzipSync(plain, { level: 9 }), { level: 9 });
  }
}

/** How a bomb server answers every request. */
export interface BombReply {
  readonly encoding: BombEncoding;
  readonly status?: number;
  readonly contentType?: string;
  /** What the decoded body repeats (default a space: whitespace a JSON parser would skip). */
  readonly fill?: string;
}

/**
 * A loopback node:http server answering every request with the bomb of `reply`, declaring its
 * compressed `content-length` as a real server would (closed by `closeLoopbackServers`).
 * `requests()` counts the requests it received.
 */
export async function serveBomb(reply: BombReply): Promise<{ url: string; requests: () => number }> {
  const body = compressedBomb(reply.encoding, reply.fill);
  let requests = 0;
  const server = createServer((request, response) => {
    requests += 1;
    request.resume();
    response.writeHead(reply.status ?? 200, {
      'content-type': reply.contentType ?? 'application/json',
      'content-encoding': reply.encoding,
      'content-length': String(body.byteLength),
    });
    response.end(body);
  });
  const url = await listenOnLoopback(server);
  return { url, requests: () => requests };
}

/**
 * A loopback node:http server answering every request with `plain` compressed with `encoding`,
 * declaring its compressed `content-length` (closed by `closeLoopbackServers`).
 */
export async function serveCompressed(
  plain: string,
  encoding: BombEncoding,
  contentType: string,
): Promise<string> {
  const body = compress(Buffer.from(plain), encoding);
  const server = createServer((request, response) => {
    request.resume();
    response.writeHead(200, {
      'content-type': contentType,
      'content-encoding': encoding,
      'content-length': String(body.byteLength),
    });
    response.end(body);
  });
  return listenOnLoopback(server);
}

/** The decoded bytes a failure's message says were read (`N bytes read, counted after decoding`). */
export function bytesReadIn(message: string): number {
  const match = /(\d+) bytes read, counted after decoding/.exec(message);
  if (match === null) throw new Error(`no count of bytes read in: ${message}`);
  return Number(match[1]);
}
