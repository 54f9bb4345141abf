import type { IncomingMessage } from 'node:http';
import { pipeline, type Readable, type Transform } from 'node:stream';
import { constants, createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

// As fetch decodes: lenient about a stream cut short after its last whole block.
const ZLIB = { flush: constants.Z_SYNC_FLUSH, finishFlush: constants.Z_SYNC_FLUSH };
const BROTLI = {
  flush: constants.BROTLI_OPERATION_FLUSH,
  finishFlush: constants.BROTLI_OPERATION_FLUSH,
};

/** The most codings a reply may declare, as fetch allows (a long chain of decoders is itself the attack). */
const MAX_CODINGS = 5;

/**
 * A reply's body with its `Content-Encoding` (`encoding`, as its header reads) undone as it arrives, as fetch does: `gzip`
 * (`x-gzip`), `deflate` (the zlib format RFC 9110 names) and `br`, several in a row undone
 * right to left; `identity` is skipped, and a body with a coding it does not know is handed
 * over as it came. The decoders are `node:zlib` streams: they decode only as fast as the
 * body is read, so a cap counted on what comes out (`readBody`, `SseStream`) bounds the
 * memory of a body that decodes to gigabytes. An error of the reply or a decoder ends
 * every stream of the chain, and is the returned stream's. Throws a RangeError for more
 * than {@link MAX_CODINGS} codings.
 */
export function decodedBody(response: IncomingMessage, encoding: string | null): Readable {
  if (encoding === null) return response;
  const decoders: Transform[] = [];
  const codings = encoding.toLowerCase().split(',');
  if (codings.length > MAX_CODINGS) {
    throw new RangeError(`the reply declares ${codings.length} content codings, more than ${MAX_CODINGS}`);
  }
  for (let index = codings.length - 1; index >= 0; index -= 1) {
    const coding = (codings[index] as string).trim();
    if (coding === 'gzip' || coding === 'x-gzip') decoders.push(createGunzip(ZLIB));
    else if (coding === 'deflate') decoders.push(createInflate(ZLIB));
    else if (coding === 'br') decoders.push(createBrotliDecompress(BROTLI));
    else if (coding !== 'identity' && coding !== '') return response;
  }
  if (decoders.length === 0) return response;
  // The chain's error reaches the last decoder, which the body reader listens to.
  return pipeline([response, ...decoders], () => {}) as Transform;
}
