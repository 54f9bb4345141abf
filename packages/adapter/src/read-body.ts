import type { WireReply } from './wire-reply.js';

/** A reply body read up to a cap. */
export interface BodyText {
  /** The body as UTF-8 text; `''` when it overflowed (nothing past the cap is worth decoding). */
  text: string;
  /** True when the body went past the cap: reading stopped there and the stream was cancelled. */
  overflowed: boolean;
  /**
   * The bytes read, counted after any `Content-Encoding` was undone: the body's length, or, when it
   * overflowed, the count with the chunk that passed the cap (0 when its declared length alone did).
   */
  bytesRead: number;
}

/**
 * Reads a body as text, keeping at most `maxBytes` bytes in memory: past that
 * the stream is cancelled (the connection dropped) and `overflowed` is set.
 * The cap counts the bytes as they arrive after decoding: the transport undoes a
 * `Content-Encoding` (gzip, br, deflate, several in a row) while the body is
 * read (fetch itself, or the Node transport's `node:zlib` streams), so a
 * declared `content-length` is the compressed size and says nothing
 * of what `text()` would build (a 1 KB brotli body can decode to gigabytes).
 * Such a length is only used to refuse a plain (unencoded) body at once when
 * it alone passes the cap. Rejects as soon as the attempt's `ended` does (at
 * its deadline or the caller's abort), also while a read is pending (a custom
 * `fetch` may ignore the attempt's signal; a body that `endsWithAttempt` rejects
 * by itself), and with the stream's own error when the body is cut off.
 */
export async function readBody(
  response: WireReply,
  maxBytes: number,
  attempt: { readonly ended: Promise<never> },
): Promise<BodyText> {
  const body = response.body;
  if (body === null) return { text: '', overflowed: false, bytesRead: 0 };
  if (declaredPastCap(response, maxBytes)) {
    body.cancel().catch(() => {});
    return { text: '', overflowed: true, bytesRead: 0 };
  }
  // A body the transport ends with the attempt rejects by itself: no race (and no promise) per read.
  const ended = body.endsWithAttempt === true ? null : attempt.ended;
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  let finished = false;
  try {
    for (;;) {
      const chunk = await (ended === null ? reader.read() : Promise.race([reader.read(), ended]));
      if (chunk.done) {
        finished = true;
        return { text: decode(chunks, length), overflowed: false, bytesRead: length };
      }
      if (length + chunk.value.byteLength > maxBytes) {
        return { text: '', overflowed: true, bytesRead: length + chunk.value.byteLength };
      }
      chunks.push(chunk.value);
      length += chunk.value.byteLength;
    }
  } finally {
    if (!finished) reader.cancel().catch(() => {});
  }
}

/** What passed a cap, for a message: how many decoded bytes were read, or the declared length. */
export function overflowDetail(body: BodyText, response: WireReply): string {
  if (body.bytesRead > 0) return decodedBytesRead(body.bytesRead);
  return `a declared content-length of ${response.headers.get('content-length')} bytes`;
}

/** How many bytes a body passed its cap with, as messages say it. */
export function decodedBytesRead(bytes: number): string {
  return `${bytes} bytes read, counted after decoding`;
}

function decode(chunks: Uint8Array[], length: number): string {
  const only = chunks.length === 1 ? chunks[0] : undefined;
  if (only) return Buffer.from(only.buffer, only.byteOffset, only.byteLength).toString('utf8');
  return Buffer.concat(chunks, length).toString('utf8');
}

/**
 * A reply off the network (not one built in code, whose header may say anything) that is not
 * encoded and declares a plain `content-length` past the cap: its decoded body is that long.
 */
function declaredPastCap(response: WireReply, maxBytes: number): boolean {
  if (response.type !== 'basic') return false;
  const encoding = response.headers.get('content-encoding');
  if (encoding !== null && !/^\s*(identity)?\s*$/i.test(encoding)) return false;
  const value = response.headers.get('content-length');
  return value !== null && /^\d{1,15}$/.test(value) && Number(value) > maxBytes;
}
