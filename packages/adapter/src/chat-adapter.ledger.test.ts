import { describe, expect, it } from 'vitest';
import { MISBEHAVING_COSTS } from '../test/support/misbehaving-cost-models.js';
import { collectWarnings, warningsWithCode } from '../test/support/process-warnings.js';
import { answer, RawTransport } from '../test/support/raw-transport.js';
import { ChatAdapter } from './chat-adapter.js';
import type { CompleteRequest } from './chat-client.js';
import type { CostModel } from './cost-model.js';

const request: CompleteRequest = { model: 'primary-flash', messages: [{ role: 'user', content: 'hi' }] };

describe('ChatAdapter ledger integrity', () => {
  describe('usage entries are faithful plain copies', () => {
    it('keeps a __proto__ member as an own data key, never as the prototype', async () => {
      const usage = JSON.parse('{"completion_tokens": 3, "__proto__": {"completion_tokens": 1000}}');
      const seen: unknown[] = [];
      const endpoint: CostModel = {
        cost: (entry) => {
          seen.push(entry);
          return (entry as { completion_tokens: number }).completion_tokens;
        },
      };
      const adapter = new ChatAdapter(new RawTransport([answer('a', usage)]), { endpoint });
      const response = await adapter.complete(request);
      const entry = adapter.usage[0] as Record<string, unknown>;
      expect(Object.getPrototypeOf(entry)).toBe(Object.prototype);
      expect(Object.hasOwn(entry, '__proto__')).toBe(true);
      expect(Object.getOwnPropertyDescriptor(entry, '__proto__')?.value).toEqual({ completion_tokens: 1000 });
      expect(JSON.stringify(entry)).toBe(JSON.stringify(usage));
      expect(seen).toEqual([entry]);
      expect(response.calls[0]?.usage).toBe(entry);
      expect(adapter.costUsd()).toBe(3);
    });

    it('copies and freezes nested objects, so a later change of the reply cannot reach the ledger', async () => {
      const usage = { prompt_tokens: 10, prompt_tokens_details: { cached_tokens: 4 } };
      const adapter = new ChatAdapter(new RawTransport([answer('a', usage)]));
      await adapter.complete(request);
      usage.prompt_tokens_details.cached_tokens = 99;
      const entry = adapter.usage[0];
      expect(entry).toEqual({ prompt_tokens: 10, prompt_tokens_details: { cached_tokens: 4 } });
      expect(Object.isFrozen(entry)).toBe(true);
      expect(Object.isFrozen(entry?.prompt_tokens_details)).toBe(true);
    });

    it('reads a throwing getter as undefined and still records the call', async () => {
      const usage = {
        completion_tokens: 2,
        get broken(): number {
          throw new Error('no');
        },
      };
      const adapter = new ChatAdapter(new RawTransport([answer('a', usage)]));
      await adapter.complete(request);
      expect(adapter.usage[0]).toEqual({ completion_tokens: 2, broken: undefined });
    });
  });

  describe('usage is a read-only view', () => {
    async function adapterWithOneEntry(): Promise<ChatAdapter> {
      const adapter = new ChatAdapter(new RawTransport([answer('a', { completion_tokens: 1 })]));
      await adapter.complete(request);
      return adapter;
    }

    it.each([
      ['push', (usage: unknown[]) => usage.push({ completion_tokens: 5 })],
      ['splice', (usage: unknown[]) => usage.splice(0, 1)],
      ['pop', (usage: unknown[]) => usage.pop()],
      [
        'length = 0',
        (usage: unknown[]) => {
          usage.length = 0;
        },
      ],
      ['index assignment', (usage: unknown[]) => Object.assign(usage, { 0: {} })],
      ['fill', (usage: unknown[]) => usage.fill({})],
    ])('refuses %s and keeps the ledger as it was', async (_, change) => {
      const adapter = await adapterWithOneEntry();
      expect(() => change(adapter.usage as unknown[])).toThrow(TypeError);
      expect(adapter.usage).toEqual([{ completion_tokens: 1 }]);
    });

    it('is one live view: the same object on every read, showing later calls', async () => {
      const adapter = new ChatAdapter(
        new RawTransport([answer('a', { completion_tokens: 1 }), answer('b', { completion_tokens: 2 })]),
      );
      const view = adapter.usage;
      expect(adapter.usage).toBe(view);
      await adapter.complete(request);
      await adapter.complete(request);
      expect(view).toHaveLength(2);
      expect(Array.isArray(view)).toBe(true);
      expect([...view]).toEqual([{ completion_tokens: 1 }, { completion_tokens: 2 }]);
      expect(view.map((entry) => entry.completion_tokens)).toEqual([1, 2]);
    });
  });

  describe('a cost model that misbehaves', () => {
    it.each(MISBEHAVING_COSTS)(
      'that %s counts 0, flags the record and never rejects the call',
      async (_, cost, why) => {
        const warnings = collectWarnings();
        const endpoint = { cost } as unknown as CostModel;
        const adapter = new ChatAdapter(
          new RawTransport([answer('a', { completion_tokens: 1 }), answer('b', { completion_tokens: 1 })]),
          { endpoint },
        );
        const first = await adapter.complete(request);
        const second = await adapter.bounded(5).complete(request);
        expect(first.content).toBe('a');
        expect(first.calls[0]).toMatchObject({ costUsd: null, priceSource: null });
        expect(first.calls[0]?.costError).toMatch(why);
        expect(second.calls[0]?.costError).toMatch(why);
        expect(first.costUsd).toBeNull();
        expect(adapter.costUsd()).toBe(0);
        expect(adapter.totalCostUsd()).toBe(0);
        expect(adapter.usage).toHaveLength(1);
        await new Promise((resolve) => setImmediate(resolve));
        expect(warningsWithCode(warnings, 'SWITCHBOARD_COST_MODEL')).toHaveLength(1);
      },
    );

    it('treats a throwing priceCall the same way', async () => {
      const endpoint: CostModel = {
        cost: () => 1,
        priceCall: () => {
          throw new TypeError('bad tariff');
        },
      };
      collectWarnings();
      const adapter = new ChatAdapter(new RawTransport([answer('a', { completion_tokens: 1 })]), {
        endpoint,
      });
      const response = await adapter.complete(request);
      expect(response.calls[0]?.costError).toMatch(/threw TypeError/);
      expect(adapter.costUsd()).toBe(0);
    });

    it('leaves costError out of a record that was priced', async () => {
      const adapter = new ChatAdapter(new RawTransport([answer('a', { completion_tokens: 1 })]), {
        endpoint: { cost: () => 0.5 },
      });
      const response = await adapter.complete(request);
      expect(response.calls[0]).not.toHaveProperty('costError');
    });
  });
});
