// End to end: a budget as the observer of real calls over OpenAITransport to the
// emulator. The calls go through `callThrough`, a stand-in that calls observers
// exactly as CallObserver documents (test/support/observed-call.ts). Once
// ChatAdapter takes `observers` (the adapter's branch), switch `callThrough` to
//   const endpoint = { cost: (usage: unknown) => costOf(priceOf(MODEL), usage) };
//   const adapter = new ChatAdapter(new OpenAITransport({ apiKey: KEY, baseUrl: proxy.url }), { observers, endpoint });
//   return (await adapter.complete({ model: MODEL, messages: [{ role: 'user', content }], maxTokens })).calls[0];
// and keep the assertions (checked by hand against that branch: same spend, same refusal).
import { type CallObserver, type CallRecord, OpenAITransport } from '@switchboard/adapter';
import { type Emulator, startEmulator } from '@switchboard/emulator';
import { costOf, priceOf } from '@switchboard/prices';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createBudget } from '../src/budget.js';
import { MemoryBudgetStore } from '../src/memory-store.js';
import { type InFlightProxy, startInFlightProxy } from './support/in-flight-proxy.js';
import { observedCall } from './support/observed-call.js';

const KEY = 'sk-wiring-test';
const MODEL = 'primary-flash';

describe('a budget observing real calls to the emulator', () => {
  let emulator: Emulator;
  let proxy: InFlightProxy;
  let transport: OpenAITransport;

  beforeAll(async () => {
    emulator = await startEmulator({ key: KEY });
    proxy = await startInFlightProxy(emulator.url);
    transport = new OpenAITransport({ apiKey: KEY, baseUrl: proxy.url, maxAttempts: 1 });
  });
  beforeEach(() => emulator.reset());
  afterAll(async () => {
    await proxy?.close();
    await emulator?.close();
  });

  function callThrough(observers: CallObserver[], content: string, maxTokens = 32): Promise<CallRecord> {
    return observedCall(transport, observers, {
      model: MODEL,
      messages: [{ role: 'user', content }],
      maxTokens,
      maxAttempts: 3,
    });
  }

  it('settles each call at its record cost, which its worst case covers', async () => {
    const budget = createBudget({ scope: { name: 'wiring-1', limitUsd: 1 } });
    const record = await callThrough([budget], 'Why did the build fail on step three?');
    expect(record.costUsd).toBe(costOf(priceOf(MODEL), record.usage));
    const [scope] = await budget.usage();
    expect(scope).toMatchObject({
      spentNanoUsd: Math.round((record.costUsd ?? 0) * 1e9),
      reservedNanoUsd: 0,
    });
  });

  it('refuses the call that would cross the limit before anything is sent', async () => {
    const budget = createBudget({ scope: { name: 'wiring-2', limitUsd: 0.000_01 } });
    await expect(callThrough([budget], 'Explain the failing test.', 64)).rejects.toMatchObject({
      kind: 'budget',
      reason: 'spend',
      scope: 'wiring-2',
    });
    expect(emulator.requests).toHaveLength(0);
  });

  it('releases a failed attempt and settles the retry that got a reply', async () => {
    emulator.setFaults([{ status: 503, times: 1 }]);
    const store = new MemoryBudgetStore();
    const budget = createBudget({ store, scope: { name: 'wiring-3', limitUsd: 1 } });
    const record = await callThrough([budget], 'Summarise the log.');
    expect(record.attempts).toBe(2);
    expect(emulator.requests).toHaveLength(2);
    const [scope] = await budget.usage();
    expect(scope).toMatchObject({
      spentNanoUsd: Math.round((record.costUsd ?? 0) * 1e9),
      reservedNanoUsd: 0,
      inFlight: 0,
    });
  });

  it('lets at most maxInFlight attempts reach the platform at once', async () => {
    emulator.setFaults([{ delayMs: 40 }]);
    const budget = createBudget({ scope: { name: 'wiring-4', maxInFlight: 2 }, maxOutputTokens: 64 });
    const before = proxy.peakInFlight;
    expect(before).toBeLessThanOrEqual(1);
    await Promise.all(Array.from({ length: 8 }, (_, index) => callThrough([budget], `Question ${index}?`)));
    expect(emulator.requests).toHaveLength(8);
    expect(proxy.peakInFlight).toBe(2);
  });
});
