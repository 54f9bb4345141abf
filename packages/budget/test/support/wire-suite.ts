// What the wire suites (books-paths, stream-settlement) set up alike: a budget on a store of
// the suite's factory, observing a real ChatAdapter over OpenAITransport to the emulator.
import {
  type CallRecord,
  ChatAdapter,
  type ChatAdapterOptions,
  type ChatDelta,
  type ChatStream,
  type CompleteRequest,
  OpenAITransport,
} from '@switchboard/adapter';
import { type Emulator, startEmulator } from '@switchboard/emulator';
import { costOf, priceOf } from '@switchboard/prices';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createBudget } from '../../src/budget.js';
import type { StoreFactory } from './store-factories.js';

const MODEL = 'primary-flash';
const endpoint = { cost: (usage: unknown) => costOf(priceOf(MODEL), usage) };

/** A request to the emulator's model for a list, capped at `maxTokens`. */
export function listRequest(maxTokens: number): CompleteRequest {
  return {
    model: MODEL,
    messages: [{ role: 'user', content: 'List the steps of the failing build, one by one.' }],
    maxTokens,
  };
}

/** Reads a stream to its end, its failure or its `stopAfter`th delta: the deltas that came and the failure, if any. */
export async function readStream(
  stream: ChatStream,
  stopAfter = Number.POSITIVE_INFINITY,
): Promise<{ deltas: ChatDelta[]; error: unknown }> {
  const deltas: ChatDelta[] = [];
  try {
    for await (const delta of stream) {
      deltas.push(delta);
      if (deltas.length >= stopAfter) break;
    }
  } catch (error) {
    return { deltas, error };
  }
  return { deltas, error: null };
}

/** Where the transport sends its requests (the emulator by default) and how many attempts it makes. */
interface TransportChoice {
  baseUrl?: string;
  maxAttempts?: number;
}

/**
 * Registers in the calling describe block an emulator answering `key` and `factory`'s stores,
 * started before its tests and stopped after, the emulator reset before each test. `setUp()`
 * makes a budget on a fresh store, with a scope of its own (`<scope>-<n>`, limit $1), and an
 * adapter it observes; every call's record lands in `records`.
 */
export function wireSuite(factory: StoreFactory, { key, scope }: { key: string; scope: string }) {
  let emulator: Emulator | undefined;
  let runs = 0;
  const running = (): Emulator => {
    if (emulator === undefined) throw new Error('the emulator is not running');
    return emulator;
  };

  beforeAll(async () => {
    await factory.setUp();
    emulator = await startEmulator({ key });
  });
  beforeEach(() => running().reset());
  afterAll(async () => {
    await emulator?.close();
    await factory.tearDown();
  });

  return {
    get emulator(): Emulator {
      return running();
    },
    setUp(options: ChatAdapterOptions = {}, { baseUrl = running().url, maxAttempts }: TransportChoice = {}) {
      runs += 1;
      const budget = createBudget({
        store: factory.create(),
        scope: { name: `${scope}-${runs}`, limitUsd: 1 },
        onWarning: () => {},
      });
      const transport = new OpenAITransport({
        apiKey: key,
        baseUrl,
        retryBackoffSeconds: 0.01,
        ...(maxAttempts === undefined ? {} : { maxAttempts }),
      });
      const adapter = new ChatAdapter(transport, { endpoint, observers: [budget], ...options });
      const records: CallRecord[] = [];
      adapter.observe({ afterCall: (record) => void records.push(record) });
      return { budget, adapter, records };
    },
  };
}
