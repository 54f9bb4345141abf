import type { EmulatorOptions } from '@switchboard/emulator';
import { startTestEmulator } from '@switchboard/test-support';
import { ChatAdapter, type ChatAdapterOptions, type ChatDelta } from '../../src/index.js';
import { pricedAs } from './priced-as.js';
import { type WireTap, wireTap } from './wire-tap.js';
import type { WireTransportCase, WireTransportOptions } from './wire-transports.js';

/** The key every streaming test's emulator asks for. */
export const STREAM_KEY = 'stream-wire-key-5c1e';

/** How `adapterOn` reaches the emulator: transport options, and whether through a {@link wireTap}. */
export type StreamTransportOptions = Partial<WireTransportOptions> & { readonly tapped?: boolean };

/**
 * A fresh emulator (closed by `closeTestEmulators`) and an adapter priced as `primary-flash` over real
 * HTTP to it with `wire`'s transport; with `tapped`, through a tap (closed by `closeLoopbackServers`)
 * that keeps what the client received.
 */
export async function adapterOn(
  wire: WireTransportCase,
  options: EmulatorOptions = {},
  adapterOptions: ChatAdapterOptions = {},
  { tapped = false, ...transportOptions }: StreamTransportOptions = {},
) {
  const emulator = await startTestEmulator({ key: STREAM_KEY, ...options });
  const tap: WireTap | null = tapped ? await wireTap(emulator.url) : null;
  const transport = wire.make({
    apiKey: STREAM_KEY,
    baseUrl: tap?.url ?? emulator.url,
    retryBackoffSeconds: 0.01,
    ...transportOptions,
  });
  const adapter = new ChatAdapter(transport, { endpoint: pricedAs('primary-flash'), ...adapterOptions });
  return { emulator, transport, adapter, tap };
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

/**
 * Resolves once `count()` stops growing (the same over a 200 ms look), checking for up to `ms`;
 * rejects when it is still growing then (a reader that never stops would never settle).
 */
export async function settled(count: () => number, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  let last = count();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const now = count();
    if (now === last) return;
    if (Date.now() > until) throw new Error(`still growing after ${ms} ms (${now})`);
    last = now;
  }
}
