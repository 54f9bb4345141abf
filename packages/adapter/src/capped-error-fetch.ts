import type OpenAI from 'openai';
import { decodedBytesRead } from './read-body.js';
import { errorBodyPassedCap, MAX_ERROR_BYTES } from './wire-fetch.js';

/**
 * A copy of a caller's `openai` client (`withOptions`) whose `fetch` is its own,
 * wrapped by {@link cappedErrorFetch}: the client reads an error reply's body
 * itself, whole, with `text()` (decoded, however small it was on the wire), so
 * the body it is handed stops at the error-body cap. A client without
 * `withOptions` or a `fetch` of its own (not the `openai` package's) is used as
 * it is.
 */
export function withCappedErrorBodies(client: OpenAI): OpenAI {
  const own = (client as unknown as { fetch?: unknown }).fetch;
  if (typeof client.withOptions !== 'function' || typeof own !== 'function') return client;
  return client.withOptions({ fetch: cappedErrorFetch(own as typeof fetch) });
}

/**
 * `send`, with the body of every reply that is not a success (3xx but 304, 4xx,
 * 5xx) cut at {@link MAX_ERROR_BYTES}, counted after decoding as it arrives:
 * past the cap the connection is dropped and the body fails with an error
 * naming the cap, which the client reports as the reply's message. Successes
 * are handed back untouched (Switchboard reads them under `maxReplyBytes`).
 */
function cappedErrorFetch(send: typeof fetch): typeof fetch {
  return async (input, init) => {
    const response = await send(input, init);
    const { status } = response;
    if (status < 300 || status === 304 || response.body === null) return response;
    return new Response(capped(response.body, MAX_ERROR_BYTES), {
      status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** `body` read one chunk per pull, failing once more than `maxBytes` arrived. */
function capped(body: ReadableStream<Uint8Array>, maxBytes: number): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let length = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const chunk = await reader.read();
        if (chunk.done) {
          controller.close();
          return;
        }
        length += chunk.value.byteLength;
        if (length > maxBytes) {
          reader.cancel().catch(() => {});
          controller.error(new Error(errorBodyPassedCap(decodedBytesRead(length))));
          return;
        }
        controller.enqueue(chunk.value);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
