import { afterEach, describe, expect, it, vi } from 'vitest';
import { readAll, readThenAbort, shippedCost, tokensReceived } from '../../test/support/stream-support.js';
import { postChat, request, user } from '../../test/support/test-support.js';
import type { EmulatorOptions } from '../server/emulator-options.js';
import { type Emulator, startEmulator } from '../server/start-emulator.js';
import { promptTokens } from '../tokens/prompt-tokens.js';

const messages = [user('Which step of the nightly build failed, and why?')];
const OFF = { type: 'disabled' };
const plain = { model: 'primary-flash', messages, thinking: OFF, temperature: 0 };
const streamed = { ...plain, stream: true, stream_options: { include_usage: true } };
const PROMPT = promptTokens({ messages, tools: undefined }).length;

describe('emulator.bill()', () => {
  let emulator: Emulator;
  const start = async (options: EmulatorOptions = {}) => {
    emulator = await startEmulator(options);
    return emulator;
  };
  afterEach(async () => {
    await emulator?.close();
  });
  /** The bill once it holds `count` requests (a request is billed when its response ends or its connection closes). */
  const billOf = async (count: number) => {
    await vi.waitFor(() => expect(emulator.bill().requests).toHaveLength(count));
    return emulator.bill();
  };

  describe('whole replies', () => {
    it('bills a plain reply as its usage says, with the cache split, at the shipped prices', async () => {
      await start();
      const body = { model: 'primary-chat', messages };
      const first = await postChat(emulator.url, body);
      const second = await postChat(emulator.url, body);
      await request(emulator.url, '/models');
      const bill = await billOf(2);
      expect(second.json.usage.prompt_cache_hit_tokens).toBeGreaterThan(0);
      for (const [index, reply] of [first, second].entries()) {
        const usage = reply.json.usage;
        const billed = bill.requests[index];
        expect(billed).toEqual({
          model: 'primary-flash',
          streamed: false,
          outcome: 'whole',
          usage: {
            prompt_tokens: usage.prompt_tokens,
            completion_tokens: usage.completion_tokens,
            prompt_cache_hit_tokens: usage.prompt_cache_hit_tokens,
            prompt_cache_miss_tokens: usage.prompt_cache_miss_tokens,
          },
          costNanoUsd: await shippedCost('primary-flash', usage),
        });
        expect(Number.isInteger(billed?.costNanoUsd)).toBe(true);
      }
      expect(bill.totalNanoUsd).toBe(
        (bill.requests[0]?.costNanoUsd ?? 0) + (bill.requests[1]?.costNanoUsd ?? 0),
      );
      expect(Object.isFrozen(bill.requests)).toBe(true);
    });

    it('bills a stream written to its end as its usage chunk says', async () => {
      await start();
      const { text } = await readAll(emulator.url, { ...streamed, thinking: undefined });
      const usage = JSON.parse(text.split('\n\n').at(-3)?.slice(6) ?? '').usage;
      const [billed] = (await billOf(1)).requests;
      expect(billed).toMatchObject({ streamed: true, outcome: 'whole' });
      expect(billed?.usage).toEqual({
        prompt_tokens: usage.prompt_tokens,
        completion_tokens: usage.completion_tokens,
        prompt_cache_hit_tokens: usage.prompt_cache_hit_tokens,
        prompt_cache_miss_tokens: usage.prompt_cache_miss_tokens,
      });
      expect(billed?.usage.completion_tokens).toBe(tokensReceived(text));
    });

    it('bills a plain reply cut while it was written whole: it was generated first', async () => {
      await start({
        faults: [
          { cutOff: true, times: 1 },
          { trickleMs: 20, trickleBytes: 16, times: 1 },
        ],
      });
      await expect(postChat(emulator.url, plain)).rejects.toThrow();
      await readThenAbort(emulator.url, plain, 0);
      const bill = await billOf(2);
      const whole = (await postChat(emulator.url, plain)).json.usage.completion_tokens;
      for (const billed of bill.requests) {
        expect(billed).toMatchObject({ outcome: 'whole', streamed: false });
        expect(billed.usage.completion_tokens).toBe(whole);
      }
    });
  });

  describe('cut streams', () => {
    it('bills the prompt and the deltas written before cutAfterEvents', async () => {
      await start({ faults: [{ stream: { cutAfterEvents: 6 } }] });
      const { text, broken } = await readAll(emulator.url, streamed);
      expect(broken).toBe(true);
      const [billed] = (await billOf(1)).requests;
      // The role chunk, then five content tokens.
      expect(tokensReceived(text)).toBe(5);
      expect(billed).toMatchObject({ model: 'primary-flash', streamed: true, outcome: 'cut' });
      expect(billed?.usage).toEqual({
        prompt_tokens: PROMPT,
        completion_tokens: 5,
        prompt_cache_hit_tokens: 0,
        prompt_cache_miss_tokens: PROMPT,
      });
      expect(billed?.costNanoUsd).toBe(await shippedCost('primary-flash', billed?.usage));
    });

    it('counts reasoning written before the cut, and bills a stream that ended early or stalled as cut', async () => {
      await start({
        faults: [
          { requests: 1, stream: { cutAfterEvents: 10 } },
          { requests: 2, stream: { endAfterEvents: 4 } },
          { requests: 3, stream: { stallAfterEvents: 4 } },
        ],
      });
      await readAll(emulator.url, { ...streamed, thinking: undefined });
      await readAll(emulator.url, streamed);
      await readThenAbort(emulator.url, streamed, 4);
      const bill = await billOf(3);
      expect(bill.requests.map((billed) => [billed.outcome, billed.usage.completion_tokens])).toEqual([
        ['cut', 9],
        ['cut', 3],
        ['cut', 3],
      ]);
    });

    it('bills only what was written when the client hangs up mid-stream, never more than the whole reply', async () => {
      await start({ answerTokens: 2000, faults: [{ stream: { eventMs: 2 } }] });
      const text = await readThenAbort(emulator.url, streamed, 20);
      const [billed] = (await billOf(1)).requests;
      expect(billed?.outcome).toBe('cut');
      const tokens = billed?.usage.completion_tokens ?? 0;
      expect(tokens).toBeGreaterThanOrEqual(tokensReceived(text));
      expect(tokens).toBeLessThan(2000);
      expect(billed?.usage.prompt_tokens).toBe(PROMPT);
    });

    it('bills an endless stream up to the whole reply at most', async () => {
      await start({ answerTokens: 16, faults: [{ stream: { endless: true } }] });
      const whole = (await postChat(emulator.url, plain)).json.usage.completion_tokens;
      const text = await readThenAbort(emulator.url, streamed, 200);
      expect(tokensReceived(text)).toBeGreaterThan(whole);
      const billed = (await billOf(2)).requests[1];
      expect(billed).toMatchObject({ outcome: 'cut', usage: { completion_tokens: whole } });
    });
  });

  describe('errors', () => {
    it('bills the output written before an error event as error_after_output', async () => {
      await start({
        faults: [
          { requests: 1, stream: { errorAt: 5, errorCode: 429 } },
          { requests: 2, stream: { errorAt: 5, errorEvent: true } },
          { requests: 3, stream: { errorAt: 2 } },
        ],
      });
      const first = await readAll(emulator.url, streamed);
      await readAll(emulator.url, streamed);
      await readAll(emulator.url, streamed);
      const bill = await billOf(3);
      // Role chunk, three content tokens, then the error.
      expect(tokensReceived(first.text)).toBe(3);
      expect(bill.requests[0]).toMatchObject({
        outcome: 'error_after_output',
        usage: { completion_tokens: 3 },
      });
      expect(bill.requests[0]?.usage.prompt_tokens).toBe(PROMPT);
      expect(bill.requests[0]?.costNanoUsd).toBeGreaterThan(0);
      expect(bill.requests[1]).toMatchObject({
        outcome: 'error_after_output',
        usage: { completion_tokens: 3 },
      });
      // An error before any text: nothing generated, nothing billed.
      expect(bill.requests[2]).toMatchObject({ outcome: 'refused', costNanoUsd: 0 });
      expect(bill.requests[2]?.usage.prompt_tokens).toBe(0);
    });

    it('lists requests refused before any output at 0: 429, reset, a bad model, a missing key', async () => {
      await start({
        key: 'k',
        faults: [
          { requests: 1, status: 429 },
          { requests: 2, reset: true },
        ],
      });
      const auth = { authorization: 'Bearer k' };
      expect((await postChat(emulator.url, streamed, auth)).status).toBe(429);
      await expect(postChat(emulator.url, plain, auth)).rejects.toThrow();
      expect((await postChat(emulator.url, { ...plain, model: 'gpt-x' }, auth)).status).toBe(400);
      expect((await postChat(emulator.url, plain)).status).toBe(401);
      const bill = await billOf(4);
      const zero = {
        prompt_tokens: 0,
        completion_tokens: 0,
        prompt_cache_hit_tokens: 0,
        prompt_cache_miss_tokens: 0,
      };
      expect(bill.requests).toEqual([
        { model: 'primary-flash', streamed: true, outcome: 'refused', usage: zero, costNanoUsd: 0 },
        { model: 'primary-flash', streamed: false, outcome: 'refused', usage: zero, costNanoUsd: 0 },
        { model: 'gpt-x', streamed: false, outcome: 'refused', usage: zero, costNanoUsd: 0 },
        { model: 'primary-flash', streamed: false, outcome: 'refused', usage: zero, costNanoUsd: 0 },
      ]);
      expect(bill.totalNanoUsd).toBe(0);
    });

    it('bills an errorInBody with choices as error_after_output at its zero usage, without as refused', async () => {
      await start({
        faults: [
          { requests: 1, errorInBody: { code: 502, withChoices: true } },
          { requests: 2, errorInBody: { code: 502 } },
        ],
      });
      await postChat(emulator.url, plain);
      await postChat(emulator.url, plain);
      const bill = await billOf(2);
      expect(bill.requests.map((billed) => [billed.outcome, billed.costNanoUsd])).toEqual([
        ['error_after_output', 0],
        ['refused', 0],
      ]);
    });
  });

  describe('the gateway flavour', () => {
    it('bills a plain reply at its usage.cost and a cut stream by the reasoning written', async () => {
      await start({ flavor: 'gateway', faults: [{ requests: 3, stream: { cutAfterEvents: 4 } }] });
      const body = { model: 'primary-v4-pro', messages };
      await postChat(emulator.url, body);
      const reply = await postChat(emulator.url, body);
      const { text } = await readAll(emulator.url, { ...body, stream: true });
      const bill = await billOf(3);
      const usage = reply.json.usage;
      expect(usage.prompt_tokens_details.cached_tokens).toBeGreaterThan(0);
      expect(bill.requests[1]).toEqual({
        model: 'primary-v4-pro',
        streamed: false,
        outcome: 'whole',
        usage: {
          prompt_tokens: usage.prompt_tokens,
          completion_tokens: usage.completion_tokens,
          prompt_cache_hit_tokens: usage.prompt_tokens_details.cached_tokens,
          prompt_cache_miss_tokens: usage.prompt_tokens - usage.prompt_tokens_details.cached_tokens,
        },
        costNanoUsd: Math.round(usage.cost * 1e9),
      });
      // The role chunk, then three reasoning pieces (their reasoning_details repeat the text, counted once).
      expect(tokensReceived(text)).toBe(3);
      expect(bill.requests[2]).toMatchObject({
        streamed: true,
        outcome: 'cut',
        usage: { completion_tokens: 3 },
      });
    });
  });

  describe('keeping', () => {
    it('is cleared by reset() and not capped by maxRecordedRequests', async () => {
      await start({ maxRecordedRequests: 1 });
      for (let index = 0; index < 3; index += 1) await postChat(emulator.url, plain);
      expect(emulator.requests).toHaveLength(1);
      expect((await billOf(3)).totalNanoUsd).toBeGreaterThan(0);
      emulator.reset();
      expect(emulator.bill()).toEqual({ totalNanoUsd: 0, requests: [] });
      await postChat(emulator.url, plain);
      expect((await billOf(1)).requests[0]?.outcome).toBe('whole');
    });
  });
});
