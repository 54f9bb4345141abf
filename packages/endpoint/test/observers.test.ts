import { type CallObserver, type CallRecord, ChatError, type ChatMessage } from '@switchboard/adapter';
import { createBudget } from '@switchboard/budget';
import { ScriptedChatClient } from '@switchboard/scripted';
import { describe, expect, it } from 'vitest';
import { resolveChatEndpoint } from '../src/index.js';
import { emulatedEndpoint } from './support/emulated-endpoint.js';

// resolveChatEndpoint's `observers`: a real budget (and a recording observer) on the
// resolved adapter, over a real loopback socket to the emulator.

const KEY = 'observers-test-key-7c1d';
const MODEL = 'primary-flash';
const question: ChatMessage[] = [{ role: 'user', content: 'Which step of the build failed?' }];

/** Keeps every record it is told of. */
function recorder(): CallObserver & { records: CallRecord[]; attempts: number } {
  const observer = {
    records: [] as CallRecord[],
    attempts: 0,
    beforeAttempt() {
      observer.attempts += 1;
    },
    afterCall(record: CallRecord) {
      observer.records.push(record);
    },
  };
  return observer;
}

describe('resolveChatEndpoint with observers', () => {
  const { emulator, resolveWith } = emulatedEndpoint(KEY);

  describe('an adapter route', () => {
    it("settles the budget at each call's cost, for the client, its bounded copies and role views", async () => {
      const budget = createBudget({
        scope: { name: 'endpoint-run', limitUsd: 1 },
        roles: { judge: { limitUsd: 0.5 } },
        maxOutputTokens: 256,
      });
      const meter = recorder();
      const { client } = resolveWith([budget, meter]);

      const plain = await client.complete({ model: MODEL, messages: question });
      const bounded = await client.bounded(16).complete({ model: MODEL, messages: question });
      const judged = await client.forRole('judge').complete({ model: MODEL, messages: question });

      expect(emulator().requests).toHaveLength(3);
      expect(meter.records).toHaveLength(3);
      expect(meter.records.map((record) => record.role)).toEqual([null, null, 'judge']);
      const nano = (usd: number | null) => Math.round((usd ?? 0) * 1e9);
      const [root, judge] = await budget.usage('judge');
      expect(root).toMatchObject({
        scope: 'endpoint-run',
        spentNanoUsd: nano(plain.costUsd) + nano(bounded.costUsd) + nano(judged.costUsd),
        reservedNanoUsd: 0,
        inFlight: 0,
      });
      expect(judge).toMatchObject({ scope: 'endpoint-run/judge', spentNanoUsd: nano(judged.costUsd) });
      budget.close();
    });

    it('refuses the call that would cross the budget before anything is sent', async () => {
      const budget = createBudget({ scope: { name: 'endpoint-small', limitUsd: 0.000_01 } });
      const meter = recorder();
      const { client } = resolveWith([budget, meter]);

      const failure = await client.complete({ model: MODEL, messages: question, maxTokens: 64 }).then(
        () => null,
        (error: unknown) => error,
      );

      expect(ChatError.isInstance(failure)).toBe(true);
      expect(failure).toMatchObject({ kind: 'budget', retryable: false, scope: 'endpoint-small' });
      expect(emulator().requests).toHaveLength(0);
      // The refused call still has its record (no usage, no cost), so a meter sees the refusal.
      expect(meter.records).toMatchObject([{ usage: null, costUsd: null, error: { kind: 'budget' } }]);
      budget.close();
    });

    it("reserves at the endpoint's prices: a configuration entry that raises a price raises the worst case", async () => {
      const budget = createBudget({ scope: { name: 'endpoint-dear', limitUsd: 0.001 }, onWarning: () => {} });
      // 100 USD per million output tokens: 64 output tokens alone may cost 0.0064 USD, past the limit.
      const config = {
        prices: { [MODEL]: { cache_hit_per_m: 1, input_per_m: 1, output_per_m: 100 } },
      };
      const resolved = resolveWith([budget], config);
      await expect(
        resolved.client.complete({ model: MODEL, messages: question, maxTokens: 64 }),
      ).rejects.toMatchObject({ kind: 'budget', reason: 'spend', scope: 'endpoint-dear' });
      expect(emulator().requests).toHaveLength(0);
      await budget.close();
    });

    it('prices a model known only to the configuration instead of refusing it as unpriced', async () => {
      const budget = createBudget({ scope: { name: 'endpoint-house', limitUsd: 1 }, onWarning: () => {} });
      const config = {
        models: { hunter: 'house-model' },
        prices: { 'house-model': { cache_hit_per_m: 0.1, input_per_m: 0.2, output_per_m: 0.4 } },
      };
      const resolved = resolveWith([budget], config);
      // The budget lets it through (the emulator, which knows only its own models, then refuses it).
      await expect(
        resolved.client.complete({ model: 'house-model', messages: question, maxTokens: 32 }),
      ).rejects.toMatchObject({ kind: 'model_rejected' });
      expect(emulator().requests).toHaveLength(1);
      // An HTTP error reply was not billed: the reservation is released.
      const [root] = await budget.usage();
      expect(root).toMatchObject({ spentNanoUsd: 0, reservedNanoUsd: 0, inFlight: 0, unsettledCalls: 0 });
      await budget.close();
    });

    it("gives the observers to that resolution's adapter only, not to later ones", async () => {
      const meter = recorder();
      resolveWith([meter]);
      const { client } = resolveWith([]);
      await client.complete({ model: MODEL, messages: question });
      expect(meter.attempts).toBe(0);
    });
  });

  describe('the override and scripted routes (no raw call of ours)', () => {
    it('gives them no observer and leaves the override unwrapped', async () => {
      const meter = recorder();
      const override = new ScriptedChatClient([{ content: 'ok' }]);
      const overridden = resolveChatEndpoint({}, { override, observers: [meter] });
      expect(overridden?.client).toBe(override);
      await overridden?.client.complete({ model: MODEL, messages: question });

      const scripted = resolveChatEndpoint({}, { env: { SWITCHBOARD_CLIENT: 'dump' }, observers: [meter] });
      expect(scripted?.rule).toBe('scripted');
      await scripted?.client.complete({ model: MODEL, messages: question });

      expect(meter.attempts).toBe(0);
      expect(meter.records).toHaveLength(0);
    });
  });

  describe('bad input', () => {
    it('names the option when observers is not an array', () => {
      expect(() => resolveChatEndpoint({}, { observers: {} as unknown as CallObserver[], env: {} })).toThrow(
        new TypeError('options.observers must be an array of CallObserver objects'),
      );
    });

    it('names what an observer must be', () => {
      expect(() =>
        resolveChatEndpoint(
          {},
          { env: { PRIMARY_API_KEY: KEY }, observers: [{ afterCall: 1 } as unknown as CallObserver] },
        ),
      ).toThrow(
        /observer must be an object with optional beforeAttempt\(info\), afterCall\(record\) and afterChunk\(chunk\)/,
      );
    });
  });
});
