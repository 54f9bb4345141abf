// One wire test per way the books broke (issue: books never below the bill), each against the
// emulator's own bill, in memory and on a real redis-server: a real ChatAdapter over
// OpenAITransport, a budget observing it. For every case, the budget's spend (settled plus
// unsettled worst cases) is at least what the emulator billed.
import { nanoUsdOf } from '@switchboard/prices';
import { describe, expect, it } from 'vitest';
import type { Budget } from '../src/budget.js';
import { memoryStores, postgresStores, redisStores } from './support/store-factories.js';
import { until } from './support/until.js';
import { listRequest, readStream, wireSuite } from './support/wire-suite.js';

const KEY = 'sk-books-paths-test';
const request = listRequest(256);
const ODD_USAGES: ReadonlyArray<[string, unknown]> = [
  ['{}', {}],
  ['counts as strings', { prompt_tokens: '40', completion_tokens: '12', total_tokens: '52' }],
  ['Responses-style names', { input_tokens: 40, output_tokens: 12 }],
  ['total_tokens alone', { total_tokens: 52 }],
  ['negative counts', { prompt_tokens: -40, completion_tokens: -12 }],
];

const stores = [memoryStores(), redisStores(), postgresStores()];
describe.each(stores)('the books on every path, on $name', (factory) => {
  const wire = wireSuite(factory, { key: KEY, scope: 'books' });

  /** Waits for the emulator to bill `count` requests and the budget to settle; its scope and the bill. */
  async function books(budget: Budget, count: number) {
    await until(
      () => wire.emulator.bill().requests.length >= count,
      `the emulator billing ${count} request(s)`,
    );
    await budget.idle();
    const [scope] = await budget.usage();
    const bill = wire.emulator.bill();
    expect(bill.requests).toHaveLength(count);
    expect(scope?.spentNanoUsd).toBeGreaterThanOrEqual(bill.totalNanoUsd);
    expect(scope?.reservedNanoUsd).toBe(0);
    return { scope, bill };
  }

  it.each([
    ['a data event carrying {"error":{"code":429}}', { errorAt: 8, errorCode: 429 }],
    ['an `event: error` with 500', { errorAt: 8, errorCode: 500, errorEvent: true }],
  ])('1. an error after output (%s) is never free: estimated, the worst case kept', async (_, fault) => {
    wire.emulator.setFaults([{ stream: fault }]);
    const { budget, adapter, records } = wire.setUp();
    const { deltas, error } = await readStream(adapter.stream(request));
    expect(error).not.toBeNull();
    expect(deltas.length).toBeGreaterThan(0);
    expect(records[0]).toMatchObject({ settlement: 'estimate', priceSource: 'estimate' });
    expect(records[0]?.costNanoUsd).toBeGreaterThan(0);
    const { scope, bill } = await books(budget, 1);
    expect(bill.requests[0]?.outcome).toBe('error_after_output');
    expect(bill.totalNanoUsd).toBeGreaterThan(0);
    expect(scope?.unsettledCalls).toBe(1);
  });

  it.each(ODD_USAGES)(
    '2. a usage without usable counts (%s) is estimated, never an exact $0',
    async (_, usage) => {
      wire.emulator.setFaults([
        { usage, times: 1 },
        { stream: { usage }, times: 1 },
      ]);
      const { budget, adapter, records } = wire.setUp();
      await adapter.complete(request);
      await adapter.stream(request).response;
      expect(records).toHaveLength(2);
      for (const record of records) {
        expect(record).toMatchObject({ settlement: 'estimate', priceSource: 'estimate' });
        expect(record.costNanoUsd).toBeGreaterThan(0);
      }
      expect(adapter.usage).toEqual([]);
      const { scope } = await books(budget, 2);
      expect(scope?.unsettledCalls).toBe(2);
    },
  );

  it('3. a stream cut after a running usage is an estimate, not exact', async () => {
    wire.emulator.setFaults([{ stream: { usageEveryChunk: true, cutAfterEvents: 12 } }]);
    const { budget, adapter, records } = wire.setUp();
    const { error } = await readStream(adapter.stream(request));
    expect(error).not.toBeNull();
    expect(records[0]).toMatchObject({ settlement: 'estimate', priceSource: 'estimate', usage: null });
    const { scope, bill } = await books(budget, 1);
    expect(bill.requests[0]?.outcome).toBe('cut');
    expect(scope?.unsettledCalls).toBe(1);
  });

  it('3b. a whole stream with a running usage in every chunk settles exactly on the last one', async () => {
    wire.emulator.setFaults([{ stream: { usageEveryChunk: true } }]);
    const { budget, adapter, records } = wire.setUp();
    await adapter.stream(request).response;
    expect(records[0]).toMatchObject({ settlement: 'exact', priceSource: 'endpoint' });
    const { scope, bill } = await books(budget, 1);
    expect(scope).toMatchObject({ unsettledCalls: 0, spentNanoUsd: bill.totalNanoUsd });
    expect(records[0]?.costNanoUsd).toBe(bill.totalNanoUsd);
  });

  it('4. bytes after [DONE] leave the reply whole: settled exactly, at the bill', async () => {
    wire.emulator.setFaults([
      { stream: { afterDone: 'data: {"trailing": "garbage"}\n\n: more\n\nnot even sse' } },
    ]);
    const { budget, adapter, records } = wire.setUp();
    const response = await adapter.stream(request).response;
    expect(response.content).not.toBe('');
    expect(records[0]).toMatchObject({ settlement: 'exact', error: null });
    const { scope, bill } = await books(budget, 1);
    expect(scope).toMatchObject({ unsettledCalls: 0, spentNanoUsd: bill.totalNanoUsd });
  });

  it('9. a stream that opened and ended before any delta is tried again: the first attempt keeps its own worst case', async () => {
    // The first stream ends after its first event (what the provider generated is billed); the retry is whole.
    wire.emulator.setFaults([{ stream: { endAfterEvents: 1 }, times: 1 }]);
    const { budget, adapter, records } = wire.setUp();
    const { error } = await readStream(adapter.stream(request));
    expect(error).toBeNull();
    expect(records[0]).toMatchObject({ attempts: 2, settlement: 'exact' });
    const { scope, bill } = await books(budget, 2);
    expect(bill.requests.map((billed) => billed.outcome)).toEqual(['cut', 'whole']);
    // The cut attempt is an unknown fate of its own, not settled at the retry's cost.
    expect(scope?.unsettledCalls).toBe(1);
  });

  it('8. a stream broken off after three deltas records an estimate below the whole reply, and keeps the worst case', async () => {
    const whole = await wire.setUp().adapter.stream(request).response;
    const wholeNano = nanoUsdOf(whole.costUsd ?? 0);
    wire.emulator.reset();
    const { budget, adapter, records } = wire.setUp();
    const { deltas } = await readStream(adapter.stream(request), 3);
    expect(deltas).toHaveLength(3);
    await budget.idle();
    expect(records[0]).toMatchObject({ settlement: 'estimate', priceSource: 'estimate' });
    expect(records[0]?.costNanoUsd).toBeGreaterThan(0);
    expect(records[0]?.costNanoUsd).toBeLessThan(wholeNano);
    const { scope } = await books(budget, 1);
    expect(scope?.unsettledCalls).toBe(1);
  });

  it("8b. with onStreamBreak: 'drain' the broken-off stream is read to its usage and settles exactly", async () => {
    wire.emulator.setFaults([{ stream: { eventMs: 2 } }]);
    const { budget, adapter, records } = wire.setUp({ onStreamBreak: 'drain', drainSeconds: 10 });
    const stream = adapter.stream(request);
    const { deltas } = await readStream(stream, 3);
    // The caller is let go at once; the drain goes on behind it: its record, made once the drain
    // read the usage, is not there yet when the caller has its deltas back.
    expect(records).toHaveLength(0);
    expect(deltas).toHaveLength(3);
    await expect(stream.response).rejects.toMatchObject({ kind: 'aborted' });
    expect(records[0]).toMatchObject({ settlement: 'exact', priceSource: 'endpoint' });
    const { scope, bill } = await books(budget, 1);
    expect(bill.requests[0]?.outcome).toBe('whole');
    expect(records[0]?.costNanoUsd).toBe(bill.totalNanoUsd);
    expect(scope).toMatchObject({ unsettledCalls: 0, spentNanoUsd: bill.totalNanoUsd });
  });

  it('8c. a drain that passes drainSeconds is closed: estimated, the worst case kept', async () => {
    wire.emulator.setFaults([{ stream: { eventMs: 400 } }]);
    const { budget, adapter, records } = wire.setUp({ onStreamBreak: 'drain', drainSeconds: 0.3 });
    const stream = adapter.stream(request);
    await readStream(stream, 2);
    await expect(stream.response).rejects.toMatchObject({ kind: 'aborted' });
    expect(records[0]).toMatchObject({ settlement: 'estimate' });
    const { scope } = await books(budget, 1);
    expect(scope?.unsettledCalls).toBe(1);
  });
});
