import { nearUsage } from '@switchboard/test-support';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { costSum, pricedAs } from '../test/support/priced-as.js';
import { ChatAdapter } from './chat-adapter.js';
import type { ChatTransport, TransportRequest } from './chat-transport.js';

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
    it('never throws, records one usage entry per reply with a usage object, and keeps costUsd the exact finite sum', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(reply, { minLength: 1, maxLength: 6 }), async (replies) => {
          const adapter = new ChatAdapter(scriptedTransport(replies), { endpoint: costModel });
          for (const _ of replies) {
            await adapter.complete({ model: 'primary-flash', messages: [{ role: 'user', content: 'hi' }] });
          }
          const expected = replies
            .map((payload) => (isPlainRecord(payload) ? payload.usage : undefined))
            .filter(isPlainRecord);
          expect(adapter.usage).toEqual(expected);
          const sum = costSum(costModel, adapter.usage);
          expect(adapter.costUsd()).toBe(sum);
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
