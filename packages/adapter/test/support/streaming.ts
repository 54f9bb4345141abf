import type { EmulatorOptions } from '@switchboard/emulator';
import { startTestEmulator } from '@switchboard/test-support';
import {
  ChatAdapter,
  type ChatAdapterOptions,
  type ChatDelta,
  OpenAITransport,
  type OpenAITransportOptions,
} from '../../src/index.js';
import { pricedAs } from './priced-as.js';

/** The key every streaming test's emulator asks for. */
export const STREAM_KEY = 'stream-wire-key-5c1e';

/** A fresh emulator (closed by `closeTestEmulators`) and an adapter priced as `primary-flash` over real HTTP to it. */
export async function adapterOn(
  options: EmulatorOptions = {},
  adapterOptions: ChatAdapterOptions = {},
  transportOptions: Partial<OpenAITransportOptions> = {},
) {
  const emulator = await startTestEmulator({ key: STREAM_KEY, ...options });
  const transport = new OpenAITransport({
    apiKey: STREAM_KEY,
    baseUrl: emulator.url,
    retryBackoffSeconds: 0.01,
    ...transportOptions,
  });
  const adapter = new ChatAdapter(transport, { endpoint: pricedAs('primary-flash'), ...adapterOptions });
  return { emulator, transport, adapter };
}

/** Every delta of a stream, in order. */
export async function collect(stream: AsyncIterable<ChatDelta>): Promise<ChatDelta[]> {
  const deltas: ChatDelta[] = [];
  for await (const delta of stream) deltas.push(delta);
  return deltas;
}

/** The text of the deltas of one type, joined. */
export function textOf(deltas: readonly ChatDelta[], type: 'content' | 'reasoning'): string {
  let text = '';
  for (const delta of deltas) if (delta.type === type) text += delta.text;
  return text;
}

/** Resolves once `condition()` holds, checking every 5 ms; rejects after `ms`. */
export async function eventually(condition: () => boolean, ms = 2000): Promise<void> {
  const until = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`the condition did not hold within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
