import { BENCH_MODEL } from './settings.js';

/** One content event of the throughput stream: a typical chunk of ~140 bytes on the wire. */
function contentEvent(index: number): string {
  const chunk = {
    id: 'chatcmpl-b1',
    created: 1764100000,
    model: BENCH_MODEL,
    choices: [{ index: 0, delta: { content: ` w${index % 1000}` }, finish_reason: null }],
  };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/**
 * A whole streamed reply of `events` content events (then the finish reason, the
 * usage and `[DONE]`), as one buffer: what the throughput rows send.
 */
export function sseBody(events: number): Buffer {
  const parts: string[] = [];
  for (let index = 0; index < events; index += 1) parts.push(contentEvent(index));
  const tail = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-b1', created: 1764100000, model: BENCH_MODEL, choices, ...extra })}\n\n`;
  parts.push(tail([{ index: 0, delta: {}, finish_reason: 'stop' }]));
  parts.push(
    tail([], { usage: { prompt_tokens: 30, completion_tokens: events, total_tokens: 30 + events } }),
  );
  parts.push('data: [DONE]\n\n');
  return Buffer.from(parts.join(''), 'utf8');
}

/** A `fetch` that answers every request with `body` from memory, in 64 KiB chunks (no network). */
export function memoryFetch(body: Buffer): typeof fetch {
  return async (_input, init) => {
    if (typeof init?.body === 'string') JSON.parse(init.body);
    let offset = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (offset >= body.length) {
          controller.close();
          return;
        }
        controller.enqueue(body.subarray(offset, offset + 64 * 1024));
        offset += 64 * 1024;
      },
    });
    return new Response(stream, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  };
}
