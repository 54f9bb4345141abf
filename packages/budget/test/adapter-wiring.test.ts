// End to end: a budget as an observer of a real ChatAdapter over OpenAITransport to
// the emulator (through a proxy that counts requests in flight). The adapter calls
// the budget before each of the transport's attempts and settles it after each one.
import {
  type CallObserver,
  type CallRecord,
  ChatAdapter,
  ChatError,
  OpenAITransport,
} from '@switchboard/adapter';
import { type Emulator, startEmulator } from '@switchboard/emulator';
import { costOf, priceOf } from '@switchboard/prices';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createBudget } from '../src/budget.js';
import { MemoryBudgetStore } from '../src/memory-store.js';
import { type InFlightProxy, startInFlightProxy } from './support/in-flight-proxy.js';

const KEY = 'sk-wiring-test';
const MODEL = 'primary-flash';

describe('a budget observing real calls to the emulator', () => {
  let emulator: Emulator;
  let proxy: InFlightProxy;
  let transport: OpenAITransport;

  beforeAll(async () => {
    emulator = await startEmulator({ key: KEY });
    proxy = await startInFlightProxy(emulator.url);
    transport = new OpenAITransport({
      apiKey: KEY,
      baseUrl: proxy.url,
      maxAttempts: 3,
      retryBackoffSeconds: 0.01,
    });
  });
  beforeEach(() => emulator.reset());
  afterAll(async () => {
    await proxy?.close();
    await emulator?.close();
  });

  const endpoint = { cost: (usage: unknown) => costOf(priceOf(MODEL), usage) };

  async function callThrough(
    observers: CallObserver[],
    content: string,
    maxTokens = 32,
  ): Promise<CallRecord> {
    const adapter = new ChatAdapter(transport, { observers, endpoint });
    const response = await adapter.complete({
      model: MODEL,
      messages: [{ role: 'user', content }],
      maxTokens,
    });
    const [record] = response.calls;
    if (record === undefined) throw new Error('the response has no call record');
    return record;
  }

  it('settles each call at its record cost, which its worst case covers', async () => {
    const budget = createBudget({ scope: { name: 'wiring-1', limitUsd: 1 } });
    const record = await callThrough([budget], 'Why did the build fail on step three?');
    expect(record.costNanoUsd).toBe(Math.round((costOf(priceOf(MODEL), record.usage) as number) * 1e9));
    const [scope] = await budget.usage();
    expect(scope).toMatchObject({
      spentNanoUsd: record.costNanoUsd,
      reservedNanoUsd: 0,
    });
  });

  it('refuses the call that would cross the limit before anything is sent', async () => {
    const budget = createBudget({ scope: { name: 'wiring-2', limitUsd: 0.000_01 } });
    const failure = await callThrough([budget], 'Explain the failing test.', 64).then(
      () => null,
      (error: unknown) => error,
    );
    expect(ChatError.isInstance(failure)).toBe(true);
    expect(failure).toMatchObject({ kind: 'budget', retryable: false, reason: 'spend', scope: 'wiring-2' });
    expect(emulator.requests).toHaveLength(0);
    expect(proxy.inFlight).toBe(0);
  });

  it("reserves a role view's calls in the role's nested scope too, and refuses only that role", async () => {
    const budget = createBudget({
      scope: { name: 'wiring-5', limitUsd: 1 },
      roles: { judge: { limitUsd: 0.000_01 } },
    });
    const adapter = new ChatAdapter(transport, { observers: [budget], endpoint });
    const request = {
      model: MODEL,
      messages: [{ role: 'user' as const, content: 'Is it safe?' }],
      maxTokens: 64,
    };
    await expect(adapter.forRole('judge').complete(request)).rejects.toMatchObject({
      kind: 'budget',
      scope: 'wiring-5/judge',
    });
    await expect(adapter.bounded(64).complete({ ...request, role: 'judge' })).rejects.toMatchObject({
      kind: 'budget',
      scope: 'wiring-5/judge',
    });
    expect(emulator.requests).toHaveLength(0);
    const response = await adapter.complete(request);
    expect(emulator.requests).toHaveLength(1);
    const [root, judge] = await budget.usage('judge');
    expect(root?.spentNanoUsd).toBe(Math.round((response.costUsd ?? 0) * 1e9));
    expect(judge?.spentNanoUsd).toBe(0);
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

  it('settles a stream cut after its first deltas at its worst case, unsettled; its record carries the estimate', async () => {
    const budget = createBudget({ scope: { name: 'wiring-stream-cut', limitUsd: 1 } });
    // Straight to the emulator: the counting proxy does not pass a cut stream on as it was cut.
    const direct = new OpenAITransport({ apiKey: KEY, baseUrl: emulator.url, retryBackoffSeconds: 0.01 });
    const adapter = new ChatAdapter(direct, { observers: [budget], endpoint });
    const messages = [{ role: 'user' as const, content: 'Stream the summary of the failing job.' }];
    emulator.setFaults([{ stream: { cutAfterEvents: 5 } }]);
    const stream = adapter.stream({ model: MODEL, messages, maxTokens: 32 });
    const seen: string[] = [];
    const failure = await (async () => {
      for await (const delta of stream) seen.push(delta.type);
    })().then(
      () => null,
      (error: unknown) => error,
    );
    await stream.response.catch(() => {});
    expect(seen.length).toBeGreaterThan(0); // the caller saw output: no retry, the stream failed
    expect(failure).toMatchObject({ kind: 'connection' });
    const record = (failure as ChatError).partial?.calls[0];
    expect(record).toMatchObject({ streamed: true, usage: null, priceSource: 'estimate' });
    expect(emulator.requests).toHaveLength(1);

    // What the same attempt reserves, measured on a budget of its own and given back.
    const probe = createBudget({ scope: { name: 'wiring-stream-probe', limitUsd: 1 } });
    const handle = await probe.beforeAttempt({
      model: MODEL,
      attempt: 1,
      role: null,
      messages,
      tools: undefined,
      maxTokens: 32,
      signal: undefined,
    });
    const [reserved] = await probe.usage();
    await handle.end({ record: null, error: null, mayHaveBeenBilled: false });
    const worstCase = reserved?.reservedNanoUsd ?? 0;
    expect(worstCase).toBeGreaterThan(record?.costNanoUsd ?? 0);

    const [scope] = await budget.usage();
    expect(scope).toMatchObject({
      spentNanoUsd: worstCase,
      unsettledCalls: 1,
      reservedNanoUsd: 0,
      inFlight: 0,
    });
  });

  it('releases a stream refused before it opened and settles the retry at its record cost', async () => {
    const budget = createBudget({ scope: { name: 'wiring-stream-retry', limitUsd: 1 } });
    const adapter = new ChatAdapter(transport, { observers: [budget], endpoint });
    emulator.setFaults([{ status: 503, times: 1 }]);
    const response = await adapter.stream({
      model: MODEL,
      messages: [{ role: 'user', content: 'Stream the summary of the passing job.' }],
      maxTokens: 32,
    }).response;
    const [record] = response.calls;
    expect(record).toMatchObject({ streamed: true, attempts: 2, usage: expect.any(Object) });
    expect(emulator.requests).toHaveLength(2);
    const [scope] = await budget.usage();
    expect(scope).toMatchObject({
      spentNanoUsd: record?.costNanoUsd,
      unsettledCalls: 0,
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
