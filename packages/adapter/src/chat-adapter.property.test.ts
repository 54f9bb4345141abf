import { nanoUsdOf, usdOfNano } from '@switchboard/prices';
import { nearUsage } from '@switchboard/test-support';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { costSum, pricedAs } from '../test/support/priced-as.js';
import type { CallRecord } from './call-record.js';
import { ChatAdapter } from './chat-adapter.js';
import type { ChatTransport, TransportRequest } from './chat-transport.js';
import { trustedUsage } from './settlement-rule.js';

const RUNS = { numRuns: 300 };

const costModel = pricedAs('primary-flash');

const usage = nearUsage(fc.jsonValue({ maxDepth: 2 }));

/** Whole reply payloads: nearly right ones and any JSON value at all. */
const reply = fc.oneof(
  fc.record(
    {
      choices: fc.oneof(
        fc.array(
          fc.record(
            { message: fc.jsonValue({ maxDepth: 2 }), logprobs: fc.jsonValue({ maxDepth: 2 }) },
            { requiredKeys: [] },
          ),
          { maxLength: 2 },
        ),
        fc.jsonValue({ maxDepth: 1 }),
      ),
      usage,
    },
    { requiredKeys: [] },
  ),
  fc.jsonValue(),
);

/** A transport that answers call i with replies[i]. */
function scriptedTransport(replies: unknown[]): ChatTransport {
  let next = 0;
  return {
    async completeChatRaw(_request: TransportRequest) {
      const payload = replies[next];
      next += 1;
      return payload;
    },
    async completeChat() {
      throw new Error('the raw path must be used');
    },
  };
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

describe('ChatAdapter (property-based)', () => {
  describe('for any reply payload a transport resolves with', () => {
    it('never throws, records one usage entry per reply with a trusted usage, prices every other reply as a marked estimate, and keeps costUsd the exact finite sum', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(reply, { minLength: 1, maxLength: 6 }), async (replies) => {
          const adapter = new ChatAdapter(scriptedTransport(replies), { endpoint: costModel });
          const records: CallRecord[] = [];
          for (const _ of replies) {
            const response = await adapter.complete({
              model: 'primary-flash',
              messages: [{ role: 'user', content: 'hi' }],
            });
            records.push(...response.calls);
          }
          const expected = replies
            .map((payload) => (isPlainRecord(payload) ? payload.usage : undefined))
            .filter(trustedUsage);
          expect(adapter.usage).toEqual(expected);
          // A reply without a trusted usage is never free: estimated, marked, above $0.
          for (const record of records) {
            expect(record.settlement).toBe(trustedUsage(record.usage) ? 'exact' : 'estimate');
            if (record.settlement === 'estimate') {
              expect(record.priceSource).toBe('estimate');
              expect(record.costNanoUsd).toBeGreaterThan(0);
            }
          }
          const estimated = records
            .filter((record) => record.settlement === 'estimate')
            .reduce((sum, record) => sum + (record.costNanoUsd ?? 0), 0);
          const sum = costSum(costModel, adapter.usage);
          expect(adapter.costUsd()).toBe(usdOfNano(nanoUsdOf(sum) + estimated));
          expect(Number.isFinite(adapter.costUsd())).toBe(true);
          expect(adapter.costUsd()).toBeGreaterThanOrEqual(0);
        }),
        RUNS,
      );
    });

    it('keeps each recorded entry a frozen copy: changing the reply afterwards changes nothing', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.record({ prompt_tokens: fc.nat(), completion_tokens: fc.nat() }),
          async (replyUsage) => {
            const payload = { choices: [{ message: { content: 'x' } }], usage: { ...replyUsage } };
            const adapter = new ChatAdapter(scriptedTransport([payload]), { endpoint: costModel });
            await adapter.complete({ model: 'primary-flash', messages: [] });
            const cost = adapter.costUsd();
            payload.usage.completion_tokens += 1_000;
            expect(adapter.usage).toEqual([replyUsage]);
            expect(Object.isFrozen(adapter.usage[0])).toBe(true);
            expect(adapter.costUsd()).toBe(cost);
          },
        ),
        RUNS,
      );
    });
  });
});
