import { afterEach, describe, expect, it } from 'vitest';
import { postChat, user } from '../../test/support/test-support.js';
import type { EmulatorOptions } from '../server/emulator-options.js';
import { type Emulator, startEmulator } from '../server/start-emulator.js';
import { promptTokens } from '../tokens/prompt-tokens.js';
import { countTokens, tokenize } from '../tokens/tokenize.js';

const OFF = { type: 'disabled' };
const question = user('What does the billing service return for an expired card?');

describe('completeChat', () => {
  let emulator: Emulator;
  const start = async (options: EmulatorOptions = {}) => {
    emulator = await startEmulator(options);
    return emulator;
  };
  afterEach(async () => {
    await emulator?.close();
  });

  describe('a plain request', () => {
    it('answers in chat completion shape with an answer derived from the last user message', async () => {
      await start();
      const reply = await postChat(emulator.url, {
        model: 'primary-flash',
        messages: [question],
        thinking: OFF,
      });
      expect(reply.status).toBe(200);
      expect(reply.json).toMatchObject({ object: 'chat.completion', model: 'primary-flash' });
      const choice = reply.json.choices[0];
      expect(choice).toMatchObject({ index: 0, finish_reason: 'stop', logprobs: null });
      expect(choice.message.role).toBe('assistant');
      expect(choice.message.content).toMatch(
        /^Answer to: What does the billing service return for an expired card\./,
      );
    });

    it('shows the mapped id when the alias primary-chat is used', async () => {
      await start();
      const reply = await postChat(emulator.url, { model: 'primary-chat', messages: [question] });
      expect(reply.status).toBe(200);
      expect(reply.json.model).toBe('primary-flash');
    });

    it('answers the other supported model under its own id', async () => {
      await start();
      const reply = await postChat(emulator.url, { model: 'primary-v4-pro', messages: [question] });
      expect(reply.json.model).toBe('primary-v4-pro');
    });

    it('gives a longer answer to a longer question', async () => {
      await start();
      const long = user(`${'Please explain every step of the deployment pipeline in detail. '.repeat(20)}`);
      const short = await postChat(emulator.url, {
        model: 'primary-flash',
        messages: [user('Why?')],
        thinking: OFF,
      });
      const longer = await postChat(emulator.url, {
        model: 'primary-flash',
        messages: [long],
        thinking: OFF,
      });
      expect(countTokens(longer.json.choices[0].message.content)).toBeGreaterThan(
        countTokens(short.json.choices[0].message.content),
      );
    });
  });

  describe('thinking', () => {
    it('is on by default: the reply carries non-empty reasoning_content', async () => {
      await start();
      const reply = await postChat(emulator.url, {
        model: 'primary-flash',
        messages: [question],
        temperature: 0,
      });
      expect(reply.json.choices[0].message.reasoning_content).toMatch(
        /^Thinking about: What does the billing/,
      );
      expect(reply.json.usage.completion_tokens_details.reasoning_tokens).toBeGreaterThan(0);
    });

    it('ignores temperature 0: identical requests get different answers', async () => {
      await start();
      const body = { model: 'primary-flash', messages: [question], temperature: 0 };
      const first = await postChat(emulator.url, body);
      const second = await postChat(emulator.url, body);
      expect(first.json.choices[0].message.content).not.toBe(second.json.choices[0].message.content);
    });

    it('is off with thinking disabled: no reasoning_content', async () => {
      await start();
      const reply = await postChat(emulator.url, {
        model: 'primary-flash',
        messages: [question],
        thinking: OFF,
      });
      expect(reply.json.choices[0].message).not.toHaveProperty('reasoning_content');
      expect(reply.json.usage.completion_tokens_details.reasoning_tokens).toBe(0);
    });

    it('off, with temperature 0, gives identical requests the same answer, even across emulators', async () => {
      await start();
      const body = { model: 'primary-flash', messages: [question], thinking: OFF, temperature: 0 };
      const first = await postChat(emulator.url, body);
      const second = await postChat(emulator.url, body);
      const other = await startEmulator();
      try {
        const third = await postChat(other.url, body);
        expect(second.json.choices[0].message.content).toBe(first.json.choices[0].message.content);
        expect(third.json.choices[0].message.content).toBe(first.json.choices[0].message.content);
      } finally {
        await other.close();
      }
    });

    it('off, with a temperature above 0, lets identical requests get different answers', async () => {
      await start();
      const body = { model: 'primary-flash', messages: [question], thinking: OFF, temperature: 0.7 };
      const first = await postChat(emulator.url, body);
      const second = await postChat(emulator.url, body);
      expect(first.json.choices[0].message.content).not.toBe(second.json.choices[0].message.content);
    });

    it('off, answers different questions differently', async () => {
      await start();
      const body = { model: 'primary-flash', thinking: OFF, temperature: 0 };
      const first = await postChat(emulator.url, { ...body, messages: [user('first question')] });
      const second = await postChat(emulator.url, { ...body, messages: [user('second question')] });
      expect(first.json.choices[0].message.content).not.toBe(second.json.choices[0].message.content);
    });
  });

  describe('JSON mode', () => {
    const json = { model: 'primary-flash', messages: [question], response_format: { type: 'json_object' } };

    it('returns content that parses as a JSON object', async () => {
      await start();
      const reply = await postChat(emulator.url, json);
      const parsed = JSON.parse(reply.json.choices[0].message.content);
      expect(parsed).toEqual({ answer: expect.stringMatching(/^Answer to: What does/), findings: [] });
    });

    it('returns empty content for the JSON-mode requests listed in emptyJson, counting only JSON-mode requests', async () => {
      await start({ emptyJson: [2] });
      const contents: string[] = [];
      for (const body of [json, { ...json, response_format: undefined }, json, json]) {
        contents.push((await postChat(emulator.url, body)).json.choices[0].message.content);
      }
      expect(contents[0]).not.toBe('');
      expect(contents[1]).toMatch(/^Answer to/);
      expect(contents[2]).toBe('');
      expect(contents[3]).not.toBe('');
    });

    it('lets a predicate pick the empty replies', async () => {
      const seen: number[] = [];
      await start({
        emptyJson: (request) => {
          seen.push(request.number);
          return request.model === 'primary-v4-pro';
        },
      });
      const flash = await postChat(emulator.url, json);
      const pro = await postChat(emulator.url, { ...json, model: 'primary-v4-pro' });
      expect(flash.json.choices[0].message.content).not.toBe('');
      expect(pro.json.choices[0].message.content).toBe('');
      expect(seen).toEqual([1, 2]);
    });

    it('returns every JSON-mode reply empty with emptyJson true, and a set selects by number', async () => {
      await start({ emptyJson: true });
      expect((await postChat(emulator.url, json)).json.choices[0].message.content).toBe('');
      await emulator.close();
      await start({ emptyJson: new Set([1]) });
      expect((await postChat(emulator.url, json)).json.choices[0].message.content).toBe('');
      expect((await postChat(emulator.url, json)).json.choices[0].message.content).not.toBe('');
    });
  });

  describe('usage and the prefix cache', () => {
    const system = {
      role: 'system',
      content: 'You review code changes and report security findings as JSON.',
    };

    it('counts prompt tokens with the exported tokenizer and has no cache hits the first time', async () => {
      await start();
      const messages = [system, question];
      const reply = await postChat(emulator.url, { model: 'primary-flash', messages, thinking: OFF });
      const usage = reply.json.usage;
      expect(usage.prompt_tokens).toBe(promptTokens({ messages }).length);
      expect(usage.prompt_cache_hit_tokens).toBe(0);
      expect(usage.prompt_cache_miss_tokens).toBe(usage.prompt_tokens);
      expect(usage.completion_tokens).toBe(countTokens(reply.json.choices[0].message.content));
      expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
    });

    it('hits the cache for the prefix an earlier request shared, in whole blocks of 4 tokens', async () => {
      await start();
      const first = [system, question];
      const second = [system, question, { role: 'assistant', content: 'It returns 402.' }, user('And then?')];
      await postChat(emulator.url, { model: 'primary-flash', messages: first, thinking: OFF });
      const reply = await postChat(emulator.url, { model: 'primary-flash', messages: second, thinking: OFF });
      const usage = reply.json.usage;
      const shared = promptTokens({ messages: first }).length;
      expect(usage.prompt_cache_hit_tokens).toBe(Math.floor(shared / 4) * 4);
      expect(usage.prompt_cache_hit_tokens).toBeGreaterThan(0);
      expect(usage.prompt_cache_hit_tokens + usage.prompt_cache_miss_tokens).toBe(usage.prompt_tokens);
      expect(usage.prompt_tokens_details.cached_tokens).toBe(usage.prompt_cache_hit_tokens);
    });

    it('hits exactly the shared tokens with a block size of 1', async () => {
      await start({ cacheBlockTokens: 1 });
      await postChat(emulator.url, { model: 'primary-flash', messages: [system, question] });
      const reply = await postChat(emulator.url, {
        model: 'primary-flash',
        messages: [system, user('Other')],
      });
      const expected = promptTokens({ messages: [system] }).length + tokenize('user').length;
      expect(reply.json.usage.prompt_cache_hit_tokens).toBe(expected);
    });

    it('keeps a separate cache per model, the alias sharing its target model', async () => {
      await start({ cacheBlockTokens: 1 });
      const messages = [system, question];
      await postChat(emulator.url, { model: 'primary-flash', messages });
      const pro = await postChat(emulator.url, { model: 'primary-v4-pro', messages });
      const alias = await postChat(emulator.url, { model: 'primary-chat', messages });
      expect(pro.json.usage.prompt_cache_hit_tokens).toBe(0);
      expect(alias.json.usage.prompt_cache_hit_tokens).toBe(alias.json.usage.prompt_tokens);
    });

    it('counts the reasoning in completion tokens while thinking', async () => {
      await start();
      const reply = await postChat(emulator.url, { model: 'primary-flash', messages: [question] });
      const message = reply.json.choices[0].message;
      expect(reply.json.usage.completion_tokens).toBe(
        countTokens(message.content) + countTokens(message.reasoning_content),
      );
    });
  });

  describe('logprobs', () => {
    it('puts logprobs on the choice beside the message, one entry per content token', async () => {
      await start();
      const reply = await postChat(emulator.url, {
        model: 'primary-flash',
        messages: [question],
        thinking: OFF,
        logprobs: true,
        top_logprobs: 1,
      });
      const choice = reply.json.choices[0];
      expect(choice.message).not.toHaveProperty('logprobs');
      const content: { token: string; logprob: number; bytes: number[]; top_logprobs: unknown[] }[] =
        choice.logprobs.content;
      expect(content.map((entry) => entry.token).join('')).toBe(choice.message.content);
      for (const entry of content) {
        expect(entry.logprob).toBeLessThan(0);
        expect(entry.bytes).toEqual([...Buffer.from(entry.token, 'utf8')]);
        expect(entry.top_logprobs).toEqual([
          { token: entry.token, logprob: entry.logprob, bytes: entry.bytes },
        ]);
      }
    });

    it('gives the same logprobs for the same answer', async () => {
      await start();
      const body = {
        model: 'primary-flash',
        messages: [question],
        thinking: OFF,
        temperature: 0,
        logprobs: true,
      };
      const first = await postChat(emulator.url, body);
      const second = await postChat(emulator.url, body);
      expect(second.json.choices[0].logprobs).toEqual(first.json.choices[0].logprobs);
    });

    it('lists top_logprobs alternatives, each less likely than the chosen token', async () => {
      await start();
      const reply = await postChat(emulator.url, {
        model: 'primary-flash',
        messages: [question],
        logprobs: true,
        top_logprobs: 3,
      });
      const entry = reply.json.choices[0].logprobs.content[0];
      expect(entry.top_logprobs).toHaveLength(3);
      expect(entry.top_logprobs[0].token).toBe(entry.token);
      expect(entry.top_logprobs[1].logprob).toBeLessThan(entry.logprob);
      expect(entry.top_logprobs[2].logprob).toBeLessThan(entry.top_logprobs[1].logprob);
    });
  });

  describe('max_tokens', () => {
    it('cuts the answer to that many tokens and sets finish_reason length', async () => {
      await start();
      const body = { model: 'primary-flash', messages: [question], thinking: OFF, temperature: 0 };
      const full = (await postChat(emulator.url, body)).json.choices[0].message.content as string;
      const reply = await postChat(emulator.url, { ...body, max_tokens: 5 });
      const content = reply.json.choices[0].message.content;
      expect(reply.json.choices[0].finish_reason).toBe('length');
      expect(countTokens(content)).toBe(5);
      expect(full.startsWith(content)).toBe(true);
      expect(reply.json.usage.completion_tokens).toBe(5);
    });

    it('counts the reasoning within max_tokens, as the platform bills: cut in the reasoning, the content is empty', async () => {
      await start();
      const body = { model: 'primary-flash', messages: [question], max_tokens: 5 };
      const reply = await postChat(emulator.url, body);
      const message = reply.json.choices[0].message;
      expect(reply.json.usage.completion_tokens).toBe(5);
      expect(reply.json.usage.completion_tokens_details.reasoning_tokens).toBe(5);
      expect(countTokens(message.reasoning_content)).toBe(5);
      expect(message.content).toBe('');
      expect(reply.json.choices[0].finish_reason).toBe('length');
      const streamed = await postChat(emulator.url, {
        ...body,
        stream: true,
        stream_options: { include_usage: true },
      });
      expect(streamed.text).toContain('"finish_reason":"length"');
      expect(streamed.text).toContain('"completion_tokens":5,');
      expect(emulator.bill().requests.map((billed) => billed.usage.completion_tokens)).toEqual([5, 5]);
    });

    it('gives the content what the reasoning leaves of max_tokens, on both flavours', async () => {
      for (const flavor of ['primary', 'gateway'] as const) {
        await start({ flavor });
        const body = { model: 'primary-flash', messages: [question], max_tokens: 40 };
        const reply = await postChat(emulator.url, body);
        const usage = reply.json.usage;
        const message = reply.json.choices[0].message;
        const reasoning = usage.completion_tokens_details.reasoning_tokens;
        expect(reasoning).toBeGreaterThan(0);
        expect(reasoning).toBeLessThan(40);
        expect(countTokens(message.content)).toBe(40 - reasoning);
        expect(usage.completion_tokens).toBe(40);
        expect(reply.json.choices[0].finish_reason).toBe('length');
        await emulator.close();
      }
    });

    it('drops tool calls that do not fit in max_tokens, with finish_reason length', async () => {
      await start();
      const tools = [
        {
          type: 'function',
          function: {
            name: 'grep_repo',
            parameters: {
              type: 'object',
              properties: { pattern: { type: 'string' } },
              required: ['pattern'],
            },
          },
        },
      ];
      const body = {
        model: 'primary-flash',
        messages: [user('Use grep_repo to find the failing step')],
        tools,
        thinking: OFF,
      };
      const whole = (await postChat(emulator.url, body)).json;
      expect(whole.choices[0].message.tool_calls).toHaveLength(1);
      const capped = (
        await postChat(emulator.url, { ...body, max_tokens: whole.usage.completion_tokens - 1 })
      ).json;
      expect(capped.choices[0].message.tool_calls).toBeUndefined();
      expect(capped.choices[0].finish_reason).toBe('length');
      expect(capped.usage.completion_tokens).toBe(0);
    });

    // With thinking on and max_tokens 4000, the reasoning (about 24 tokens) and the answer both fit.
    it('leaves a short enough answer whole with finish_reason stop', async () => {
      await start();
      const reply = await postChat(emulator.url, {
        model: 'primary-flash',
        messages: [question],
        max_tokens: 4000,
      });
      expect(reply.json.choices[0].finish_reason).toBe('stop');
    });
  });

  describe('answer size', () => {
    it('makes every answer answerTokens long, e.g. a 50 KB reply for benchmarks', async () => {
      await start({ answerTokens: 12_000 });
      const reply = await postChat(emulator.url, {
        model: 'primary-flash',
        messages: [question],
        thinking: OFF,
      });
      const content = reply.json.choices[0].message.content as string;
      expect(countTokens(content)).toBe(12_000);
      expect(content.length).toBeGreaterThan(50_000);
    });

    it('lets the x-emulator-answer-tokens header set one answer length, and rejects a bad value', async () => {
      await start();
      const body = { model: 'primary-flash', messages: [question], thinking: OFF };
      const reply = await postChat(emulator.url, body, { 'x-emulator-answer-tokens': '300' });
      expect(countTokens(reply.json.choices[0].message.content)).toBe(300);
      const bad = await postChat(emulator.url, body, { 'x-emulator-answer-tokens': 'lots' });
      expect(bad.status).toBe(400);
      expect(bad.json.error.param).toBe('x-emulator-answer-tokens');
    });
  });
});
