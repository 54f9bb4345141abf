// On the wire: a budget observing a real ChatAdapter.stream() over OpenAITransport to the
// emulator, in memory and on a real redis-server. A stream cut after output arrived has no
// usage: its cost is unknown (the record's is only an estimate), so the budget settles it at
// the worst case it reserved. An attempt that provably never reached the provider (the
// connection refused, an error status) is released.
import {
  type AttemptOutcome,
  type CallObserver,
  type CallRecord,
  ChatError,
  type ChatStream,
} from '@switchboard/adapter';
import { describe, expect, it } from 'vitest';
import type { Budget } from '../src/budget.js';
import { freePort } from './support/start-redis.js';
import { memoryStores, postgresStores, redisStores } from './support/store-factories.js';
import { listRequest, readStream, wireSuite } from './support/wire-suite.js';

const KEY = 'sk-stream-settlement-test';
const request = listRequest(64);

/**
 * An observer placed after the budget: at each attempt it reads the reservation the budget
 * just made (the worst case), and it is ended with the same outcome as the budget's handle.
 */
function spyOn(budget: Budget) {
  const reserved: number[] = [];
  const outcomes: AttemptOutcome[] = [];
  const observer: CallObserver = {
    async beforeAttempt() {
      const [scope] = await budget.usage();
      reserved.push(scope?.reservedNanoUsd ?? Number.NaN);
      return { end: (outcome: AttemptOutcome) => void outcomes.push(outcome) };
    },
  };
  return { observer, reserved, outcomes };
}

/** Nothing spent, reserved or in flight: every reservation of the call was released. */
async function expectReleased(budget: Budget): Promise<void> {
  await budget.idle();
  expect((await budget.usage())[0]).toMatchObject({
    spentNanoUsd: 0,
    reservedNanoUsd: 0,
    inFlight: 0,
    unsettledCalls: 0,
  });
}

const stores = [memoryStores(), redisStores(), postgresStores()];
describe.each(stores)('a budget settling streamed calls, on $name', (factory) => {
  const wire = wireSuite(factory, { key: KEY, scope: 'stream' });

  /** A budget and its adapter, with a spy placed after the budget. */
  function setUp(baseUrl?: string, maxAttempts = 3) {
    const { budget, adapter, records } = wire.setUp({}, { baseUrl, maxAttempts });
    const spy = spyOn(budget);
    adapter.observe(spy.observer);
    return { budget, spy, adapter, records };
  }

  it('settles a stream cut after output at the worst case it reserved; the record carries the estimate', async () => {
    wire.emulator.setFaults([{ stream: { cutAfterEvents: 6 } }]);
    const { budget, spy, adapter, records } = setUp();
    const stream = adapter.stream(request);
    const { deltas, error } = await readStream(stream);
    expect(ChatError.isInstance(error) && error.kind).toBe('connection');
    expect(deltas.length).toBeGreaterThan(0);
    expect(wire.emulator.requests).toHaveLength(1);

    // The record: no usage, an estimated cost, never presented as exact.
    expect(records).toHaveLength(1);
    const record = records[0] as CallRecord;
    expect(record).toMatchObject({ streamed: true, usage: null, priceSource: 'estimate', attempts: 1 });
    expect(record.costNanoUsd).toBeGreaterThan(0);

    // The attempt may have been billed: the budget counts it at its worst case, as unsettled.
    expect(spy.outcomes).toHaveLength(1);
    expect(spy.outcomes[0]?.mayHaveBeenBilled).toBe(true);
    const worst = spy.reserved[0] as number;
    expect(worst).toBeGreaterThan(record.costNanoUsd as number);
    await budget.idle();
    const [scope] = await budget.usage();
    expect(scope).toMatchObject({
      spentNanoUsd: worst,
      reservedNanoUsd: 0,
      inFlight: 0,
      unsettledCalls: 1,
    });
    expect(Math.round((scope?.unsettledUsd ?? 0) * 1e9)).toBe(worst);
  });

  it('settles a whole stream that came without its usage chunk at the worst case, not at the estimate', async () => {
    wire.emulator.setFaults([{ stream: { noUsage: true } }]);
    const { budget, spy, adapter } = setUp();
    // A cap well above the reply, so the estimate (capped at it) is below the worst case.
    const stream = adapter.stream({ ...request, maxTokens: 1024 });
    const { error } = await readStream(stream);
    expect(error).toBeNull();
    const [record] = (await stream.response).calls;
    expect(record).toMatchObject({ usage: null, priceSource: 'estimate', error: null });
    expect(spy.outcomes[0]?.record).toBe(record);
    const worst = spy.reserved[0] as number;
    expect(worst).toBeGreaterThan(record?.costNanoUsd as number);
    await budget.idle();
    expect((await budget.usage())[0]).toMatchObject({
      spentNanoUsd: worst,
      reservedNanoUsd: 0,
      inFlight: 0,
      unsettledCalls: 1,
    });
  });

  it('releases every attempt of a stream whose connection was refused', async () => {
    const { budget, spy, adapter, records } = setUp(`http://127.0.0.1:${await freePort()}`, 2);
    const stream = adapter.stream(request);
    const { deltas, error } = await readStream(stream);
    expect(deltas).toEqual([]);
    expect(ChatError.isInstance(error) && error.kind).toBe('connection');
    expect(spy.reserved).toHaveLength(2);
    expect(spy.reserved[0]).toBeGreaterThan(0);
    expect(spy.outcomes.map((outcome) => outcome.mayHaveBeenBilled)).toEqual([false, false]);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ usage: null, costNanoUsd: null, attempts: 2 });
    expect(records[0]?.priceSource).not.toBe('estimate');
    await expectReleased(budget);
  });

  it('releases every attempt of a stream answered with an error status', async () => {
    wire.emulator.setFaults([{ status: 503 }]);
    const { budget, spy, adapter, records } = setUp();
    const stream = adapter.stream(request);
    const { deltas, error } = await readStream(stream);
    expect(deltas).toEqual([]);
    expect(error).toMatchObject({ kind: 'server', status: 503 });
    expect(wire.emulator.requests).toHaveLength(3);
    expect(spy.outcomes.map((outcome) => outcome.mayHaveBeenBilled)).toEqual([false, false, false]);
    expect(records[0]).toMatchObject({ usage: null, costNanoUsd: null, attempts: 3 });
    await expectReleased(budget);
  });

  it('releases a stream aborted after its reservation but before its request was sent', async () => {
    const { budget, spy, adapter, records } = setUp();
    let stream: ChatStream | null = null;
    // Placed after the budget and the spy: the reservation is made, then the caller aborts.
    adapter.observe({
      beforeAttempt: () => {
        stream?.abort(new Error('the user pressed stop'));
      },
    });
    stream = adapter.stream(request);
    const { deltas, error } = await readStream(stream);
    expect(deltas).toEqual([]);
    expect(ChatError.isInstance(error) && error.kind).toBe('aborted');
    expect(wire.emulator.requests).toHaveLength(0);
    expect(spy.reserved[0]).toBeGreaterThan(0);
    expect(spy.outcomes.map((outcome) => outcome.mayHaveBeenBilled)).toEqual([false]);
    expect(records[0]).toMatchObject({ usage: null, costNanoUsd: null });
    await expectReleased(budget);
  });

  it('counts an attempt cut after its 200 headers at its worst case, and settles the retry at its cost', async () => {
    // The provider accepted the request (it answered 200), so it may bill it; no delta had come, so it is retried.
    wire.emulator.setFaults([{ stream: { cutAfterEvents: 0 }, times: 1 }]);
    const { budget, spy, adapter } = setUp();
    const stream = adapter.stream(request);
    const { error } = await readStream(stream);
    expect(error).toBeNull();
    const [record] = (await stream.response).calls;
    expect(record?.attempts).toBe(2);
    expect(wire.emulator.requests).toHaveLength(2);
    expect(spy.outcomes.map((outcome) => outcome.mayHaveBeenBilled)).toEqual([true, true]);
    await budget.idle();
    const [scope] = await budget.usage();
    expect(scope).toMatchObject({
      spentNanoUsd: (spy.reserved[0] as number) + (record?.costNanoUsd as number),
      reservedNanoUsd: 0,
      inFlight: 0,
      unsettledCalls: 1,
    });
  });
});
