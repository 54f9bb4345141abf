/** A reply body read up to a cap. */
export interface BodyText {
  /** The body as UTF-8 text; `''` when it overflowed (nothing past the cap is worth decoding). */
  text: string;
  /** True when the body went past the cap: reading stopped there and the stream was cancelled. */
  overflowed: boolean;
}

/**
 * Reads a body as text, keeping at most `maxBytes` bytes in memory: past that
 * the stream is cancelled (the connection dropped) and `overflowed` is set.
 * Rejects as soon as `ended` does (a `CallAttempt`'s, at its deadline or
 * the caller's abort), also while a read is pending (a custom `fetch` may ignore
 * the attempt's signal), and with the stream's own error when the body is cut
 * off. A reply off the network (not a `Response` built in code) that declares a
 * `content-length` within the cap is read in one step: fetch ends such a body at
 * its declared length.
 */
export async function readBody(
  response: Response,
  maxBytes: number,
  ended: Promise<never>,
): Promise<BodyText> {
  const body = response.body;
  if (body === null) return { text: '', overflowed: false };
  const declared = response.type === 'basic' ? declaredLength(response.headers) : undefined;
  if (declared !== undefined && declared <= maxBytes) {
    // A reply off the network (not one built in code) that declared a length within the cap: fetch
    // ends its body at that length, so it is read whole, in one step, still ended by `ended`.
    return { text: await Promise.race([response.text(), ended]), overflowed: false };
  }
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  let finished = false;
  try {
    for (;;) {
      const chunk = await Promise.race([reader.read(), ended]);
      if (chunk.done) {
        finished = true;
        return { text: decode(chunks, length), overflowed: false };
      }
      if (length + chunk.value.byteLength > maxBytes) return { text: '', overflowed: true };
      chunks.push(chunk.value);
      length += chunk.value.byteLength;
    }
  } finally {
    if (!finished) reader.cancel().catch(() => {});
  }
}

function decode(chunks: Uint8Array[], length: number): string {
  const only = chunks.length === 1 ? chunks[0] : undefined;
  if (only) return Buffer.from(only.buffer, only.byteOffset, only.byteLength).toString('utf8');
  return Buffer.concat(chunks, length).toString('utf8');
}

/** The body's `content-length`, when the reply declares a plain one. */
function declaredLength(headers: Headers): number | undefined {
  const value = headers.get('content-length');
  if (value === null || !/^\d{1,15}$/.test(value)) return undefined;
  return Number(value);
}
