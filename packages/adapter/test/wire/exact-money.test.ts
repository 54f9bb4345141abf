import { costOf, formatNanoUsd, PriceBook, priceOf } from '@switchboard/prices';
import { closeTestEmulators, startTestEmulator } from '@switchboard/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { type CallRecord, ChatAdapter } from '../../src/index.js';
import { WIRE_TRANSPORTS, type WireTransportCase } from '../support/wire-transports.js';

// Money is summed as integers: each call's cost is the cost rule rounded to the nearest
// nano-dollar, and every total is the exact sum of those integers.

const KEY = 'wire-exact-money-key-91c3';
const MODELS = ['primary-flash', 'primary-v4-pro'] as const;
const DECIMAL = /^\d+(\.\d{1,9})?$/;

afterEach(async () => {
  await closeTestEmulators();
});

async function pricedAdapter(
  wire: WireTransportCase,
  options: { emptyJson?: (request: { jsonNumber: number }) => boolean } = {},
) {
  const emulator = await startTestEmulator({ key: KEY, ...options });
  const transport = wire.make({ apiKey: KEY, baseUrl: emulator.url });
  const book = new PriceBook();
  // Each call priced by the model it was made with, as a resolved endpoint does.
  return new ChatAdapter(transport, {
    endpoint: { cost: () => null, priceCall: (call) => book.priceCall(call) },
  });
}

function question(index: number): string {
  // Prompts of many lengths, some repeated, so cache hits and misses vary.
  return `Audit batch ${index % 37}: ${'the nightly jobs of the ledger service '.repeat(1 + (index % 11))}`;
}

describe.each(WIRE_TRANSPORTS)('over $name', (wire) => {
  describe('exact money over the wire', () => {
    it('keeps 1,000 mixed-model calls free of float noise: records, responses and totals add up exactly', async () => {
      const adapter = await pricedAdapter(wire);
      const bounded = adapter.bounded(64);
      const records: CallRecord[] = [];
      let floatSum = 0;
      for (let index = 0; index < 1000; index += 1) {
        const client = index % 10 === 9 ? bounded : adapter;
        const model = MODELS[index % 3 === 0 ? 1 : 0] as string;
        const response = await client.complete({
          model,
          messages: [{ role: 'user', content: question(index) }],
        });
        const record = response.calls[0] as CallRecord;
        records.push(record);
        floatSum += costOf(priceOf(model), record.usage) as number;
        expect(Number.isSafeInteger(record.costNanoUsd)).toBe(true);
        expect(record.costUsd).toBe((record.costNanoUsd as number) / 1e9);
        expect(response.costNanoUsd).toBe(record.costNanoUsd);
        expect(response.costUsd).toBe(record.costUsd);
        // The cost rule, rounded to the nearest nano-dollar.
        expect(record.costNanoUsd).toBe(Math.round((costOf(priceOf(model), record.usage) as number) * 1e9));
      }

      let nano = 0n;
      for (const record of records) nano += BigInt(record.costNanoUsd as number);
      expect(BigInt(adapter.totalCostNanoUsd())).toBe(nano);
      const total = String(adapter.totalCostUsd());
      expect(total).toMatch(DECIMAL);
      expect(total).toBe(formatNanoUsd(Number(nano)));
      // Parts and whole agree: the adapter's own calls plus the bounded copy's.
      expect(adapter.costNanoUsd() + bounded.costNanoUsd()).toBe(adapter.totalCostNanoUsd());
      expect(String(adapter.costUsd())).toMatch(DECIMAL);
      expect(String(bounded.costUsd())).toMatch(DECIMAL);
      // The same costs summed as floats carry noise: this test would see it.
      expect(String(floatSum)).not.toMatch(DECIMAL);
    }, 60_000);

    it('gives a JSON-mode retry the exact sum of its two calls', async () => {
      const adapter = await pricedAdapter(wire, { emptyJson: ({ jsonNumber }) => jsonNumber === 1 });
      const response = await adapter.complete({
        model: 'primary-v4-pro',
        messages: [{ role: 'user', content: 'List the failed jobs as JSON.' }],
        jsonObject: true,
      });
      expect(response.calls).toHaveLength(2);
      const [first, second] = response.calls as [CallRecord, CallRecord];
      expect(response.costNanoUsd).toBe((first.costNanoUsd as number) + (second.costNanoUsd as number));
      expect(response.costUsd).toBe((response.costNanoUsd as number) / 1e9);
      expect(adapter.costNanoUsd()).toBe(response.costNanoUsd);
    });
  });
});
