import { costOf, priceOf } from '@switchboard/prices';
import { closeTestEmulators, startTestEmulator } from '@switchboard/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { ChatAdapter, type ChatMessage, type CostModel } from '../../src/index.js';
import { MISBEHAVING_COSTS } from '../support/misbehaving-cost-models.js';
import { pricedAs } from '../support/priced-as.js';
import { collectWarnings, warningsWithCode } from '../support/process-warnings.js';
import { WIRE_TRANSPORTS, type WireTransportCase } from '../support/wire-transports.js';

// Issue 10, observation 7: the ledger could be bent from the wire (a `usage.__proto__` member became
// the entry's prototype and the call priced at 0), by a caller (`adapter.usage` was the internal
// array) and by a cost model (a throw rejected a call whose reply was already recorded; a negative
// cost made costUsd() negative).

const KEY = 'wire-ledger-key-2f7a';
const question: ChatMessage[] = [{ role: 'user', content: 'Which jobs failed last night?' }];

afterEach(async () => {
  await closeTestEmulators();
});

/** A real adapter over a real transport to a fresh emulator, whose every reply is `body` when given. */
async function adapterAgainst(wire: WireTransportCase, endpoint: CostModel, body?: string) {
  const faults = body === undefined ? [] : [{ body, contentType: 'application/json' }];
  const emulator = await startTestEmulator({ key: KEY, faults });
  const adapter = new ChatAdapter(wire.make({ apiKey: KEY, baseUrl: emulator.url }), { endpoint });
  return { emulator, adapter };
}

describe.each(WIRE_TRANSPORTS)('over $name', (wire) => {
  describe('ChatAdapter, ledger integrity (issue 10.7)', () => {
    describe('a reply whose usage carries a "__proto__" member', () => {
      // Raw JSON text: an object literal would set the prototype here, before the wire.
      const usageText =
        '{"prompt_tokens": 3000000, "completion_tokens": 2000000, "total_tokens": 5000000, "__proto__": {"prompt_tokens": 0}}';
      const body = `{"id": "chatcmpl-proto", "object": "chat.completion", "created": 1700000000, "model": "primary-flash", "choices": [{"index": 0, "message": {"role": "assistant", "content": "Two jobs failed."}, "logprobs": null, "finish_reason": "stop"}], "usage": ${usageText}}`;

      it('records __proto__ as an own data key, never as the prototype', async () => {
        const { adapter } = await adapterAgainst(wire, pricedAs('primary-flash'), body);
        await adapter.complete({ model: 'primary-flash', messages: question });

        const entry = adapter.usage[0] as Record<string, unknown>;
        expect(Object.getPrototypeOf(entry)).toBe(Object.prototype);
        expect(Object.hasOwn(entry, '__proto__')).toBe(true);
        expect(Object.getOwnPropertyDescriptor(entry, '__proto__')?.value).toEqual({ prompt_tokens: 0 });
        expect(JSON.stringify(entry)).toBe(JSON.stringify(JSON.parse(usageText)));
      });

      it('prices the call on its real counts, not at 0', async () => {
        const { adapter } = await adapterAgainst(wire, pricedAs('primary-flash'), body);
        const response = await adapter.complete({ model: 'primary-flash', messages: question });

        const expected = costOf(priceOf('primary-flash'), {
          prompt_tokens: 3_000_000,
          completion_tokens: 2_000_000,
        });
        expect(expected).toBeGreaterThan(1);
        expect(response.calls[0]?.costUsd).toBe(expected);
        expect(adapter.costUsd()).toBe(expected);
      });
    });

    describe('adapter.usage after wire calls', () => {
      it.each([
        ['push', (usage: unknown[]) => usage.push({ prompt_tokens: 0 })],
        ['splice', (usage: unknown[]) => usage.splice(0, 2)],
        [
          'length = 0',
          (usage: unknown[]) => {
            usage.length = 0;
          },
        ],
      ])('cannot be changed by a caller (%s throws; ledger and cost unchanged)', async (_, change) => {
        const { adapter } = await adapterAgainst(wire, pricedAs('primary-flash'));
        await adapter.complete({ model: 'primary-flash', messages: question });
        await adapter.complete({ model: 'primary-flash', messages: question });
        const before = [...adapter.usage];
        const cost = adapter.costUsd();

        expect(() => change(adapter.usage as unknown[])).toThrow(TypeError);
        expect([...adapter.usage]).toEqual(before);
        expect(adapter.usage).toHaveLength(2);
        expect(adapter.costUsd()).toBe(cost);
        expect(cost).toBeGreaterThan(0);
      });
    });

    describe('a cost model that misbehaves', () => {
      it.each(MISBEHAVING_COSTS)(
        'that %s: the calls resolve, count 0, are flagged, and one warning is given',
        async (_, cost, why) => {
          const warnings = collectWarnings();
          const { emulator, adapter } = await adapterAgainst(wire, { cost } as unknown as CostModel);
          const first = await adapter.complete({ model: 'primary-flash', messages: question });
          const second = await adapter.complete({ model: 'primary-flash', messages: question });
          await new Promise((resolve) => setImmediate(resolve));

          expect(emulator.requests).toHaveLength(2);
          expect(first.content).toEqual(expect.any(String));
          for (const response of [first, second]) {
            expect(response.costUsd).toBeNull();
            expect(response.calls[0]).toMatchObject({ costUsd: null, costError: expect.stringMatching(why) });
          }
          expect(adapter.usage).toHaveLength(2);
          expect(adapter.costUsd()).toBe(0);
          expect(warningsWithCode(warnings, 'SWITCHBOARD_COST_MODEL')).toHaveLength(1);
        },
      );
    });
  });
});
