import * as switchboard from '@switchboard/adapter';
import { createParser } from 'eventsource-parser';
import OpenAI from 'openai';
import { BENCH_API_KEY, BENCH_MESSAGES, BENCH_MODEL } from './settings.js';

/** One streamed call, read to its end; resolves with the characters of content received. */
export type StreamRun = () => Promise<number>;

/** The `openai` SDK's own streaming: `for await` over `create({ stream: true })`. */
export function sdkStream(
  baseURL: string,
  fetcher?: typeof fetch,
  onDelta: () => void = () => {},
): StreamRun {
  const client = new OpenAI({
    apiKey: BENCH_API_KEY,
    baseURL,
    maxRetries: 0,
    ...(fetcher ? { fetch: fetcher } : {}),
  });
  return async () => {
    const stream = await client.chat.completions.create({
      model: BENCH_MODEL,
      messages: BENCH_MESSAGES,
      temperature: 0,
      stream: true,
      stream_options: { include_usage: true },
      // The primary platform's own field, passed through as the other clients send it.
      ...({ thinking: { type: 'disabled' } } as object),
    });
    let chars = 0;
    for await (const chunk of stream) {
      const text = chunk.choices[0]?.delta?.content;
      if (text) {
        onDelta();
        chars += text.length;
      }
    }
    return chars;
  };
}

/** The adapter's classes a stream needs: the built package, or another build of it (`--before`). */
export type AdapterModule = Pick<typeof switchboard, 'ChatAdapter' | 'OpenAITransport'>;

/** Switchboard's: `for await` over `adapter.stream(...)` (over `FetchTransport`), then its response (record and cost). */
export function adapterStream(
  baseURL: string,
  fetcher?: typeof fetch,
  onDelta: () => void = () => {},
  module: AdapterModule = switchboard,
): StreamRun {
  const adapter = new module.ChatAdapter(
    new module.OpenAITransport({
      apiKey: BENCH_API_KEY,
      baseUrl: baseURL,
      ...(fetcher ? { fetch: fetcher } : {}),
    }),
  );
  return async () => {
    const stream = adapter.stream({ model: BENCH_MODEL, messages: BENCH_MESSAGES });
    let chars = 0;
    for await (const delta of stream) {
      if (delta.type === 'content') {
        onDelta();
        chars += delta.text.length;
      }
    }
    await stream.response;
    return chars;
  };
}

/**
 * The floor of a streamed reply's parsing, which issue 43 sets ChatAdapter.stream's throughput
 * against: `eventsource-parser` over the body's text and `JSON.parse` of each event's data, the
 * content of each chunk added up, and nothing more (no checks, no usage, no record).
 */
export function parserStream(baseURL: string, fetcher: typeof fetch = fetch): StreamRun {
  const body = JSON.stringify({
    model: BENCH_MODEL,
    messages: BENCH_MESSAGES,
    temperature: 0,
    stream: true,
    stream_options: { include_usage: true },
  });
  const headers = { authorization: `Bearer ${BENCH_API_KEY}`, 'content-type': 'application/json' };
  return async () => {
    const response = await fetcher(`${baseURL}/chat/completions`, { method: 'POST', headers, body });
    if (response.body === null) throw new Error('the stream has no body');
    let chars = 0;
    const parser = createParser({
      onEvent(event) {
        if (event.data === '[DONE]') return;
        const chunk = JSON.parse(event.data) as { choices?: { delta?: { content?: string } }[] };
        const text = chunk.choices?.[0]?.delta?.content;
        if (text) chars += text.length;
      },
    });
    const decoder = new TextDecoder();
    for await (const bytes of response.body) parser.feed(decoder.decode(bytes, { stream: true }));
    return chars;
  };
}
