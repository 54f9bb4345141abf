import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { postChat, request, user } from '../../test/support/test-support.js';
import { type Emulator, startEmulator } from './start-emulator.js';

const chat = { model: 'primary-flash', messages: [user('Status of the nightly build?')] };

describe('createRequestHandler', () => {
  let emulator: Emulator;
  beforeEach(async () => {
    emulator = await startEmulator();
  });
  afterEach(async () => {
    await emulator.close();
  });

  describe('a status fault', () => {
    it('answers 429 with retry-after and a rate limit error body', async () => {
      emulator.setFaults([{ status: 429, retryAfter: 1 }]);
      const reply = await postChat(emulator.url, chat);
      expect(reply.status).toBe(429);
      expect(reply.headers.get('retry-after')).toBe('1');
      expect(reply.json.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });
    });

    it('sets retry-after-ms when asked', async () => {
      emulator.setFaults([{ status: 429, retryAfterMs: 250 }]);
      const reply = await postChat(emulator.url, chat);
      expect(reply.headers.get('retry-after-ms')).toBe('250');
      expect(reply.headers.get('retry-after')).toBeNull();
    });

    it('answers 500 and 503 with server error bodies, then answers normally once used up', async () => {
      emulator.setFaults([
        { status: 500, times: 1 },
        { status: 503, times: 1, message: 'Busy right now.' },
      ]);
      const first = await postChat(emulator.url, chat);
      const second = await postChat(emulator.url, chat);
      const third = await postChat(emulator.url, chat);
      expect(first.status).toBe(500);
      expect(first.json.error).toMatchObject({ type: 'server_error', code: 'internal_error' });
      expect(second.status).toBe(503);
      expect(second.json.error).toMatchObject({ message: 'Busy right now.', code: 'service_unavailable' });
      expect(third.status).toBe(200);
    });

    it('answers another status with a generic JSON error', async () => {
      emulator.setFaults([{ status: 502 }]);
      const reply = await postChat(emulator.url, chat);
      expect(reply.status).toBe(502);
      expect(reply.json.error).toMatchObject({ message: '502 Bad Gateway', type: 'server_error' });
    });
  });

  describe('selecting requests', () => {
    it('applies a rule to the listed request numbers, counting every request', async () => {
      emulator.setFaults([{ requests: 2, status: 503 }]);
      const first = await request(emulator.url, '/models');
      const second = await postChat(emulator.url, chat);
      const third = await postChat(emulator.url, chat);
      expect([first.status, second.status, third.status]).toEqual([200, 503, 200]);
    });

    it('applies a rule by model, matching the id an alias maps to', async () => {
      emulator.setFaults([{ model: 'primary-flash', status: 500 }]);
      const pro = await postChat(emulator.url, { ...chat, model: 'primary-v4-pro' });
      const alias = await postChat(emulator.url, { ...chat, model: 'primary-chat' });
      expect(pro.status).toBe(200);
      expect(alias.status).toBe(500);
    });

    it('applies a rule by path only', async () => {
      emulator.setFaults([{ path: '/chat/completions', status: 500 }]);
      expect((await request(emulator.url, '/models')).status).toBe(200);
      expect((await postChat(emulator.url, chat)).status).toBe(500);
    });

    it('starts with the faults option and forgets the plan on setFaults', async () => {
      const faulty = await startEmulator({ faults: [{ status: 503 }] });
      try {
        expect((await postChat(faulty.url, chat)).status).toBe(503);
        faulty.setFaults([]);
        expect((await postChat(faulty.url, chat)).status).toBe(200);
      } finally {
        await faulty.close();
      }
    });
  });

  describe('connection and body faults', () => {
    it('resets the connection without a response', async () => {
      emulator.setFaults([{ reset: true, times: 1 }]);
      await expect(postChat(emulator.url, chat)).rejects.toThrow(TypeError);
      expect((await postChat(emulator.url, chat)).status).toBe(200);
    });

    it('sends a complete 200 response whose JSON body is cut in half', async () => {
      emulator.setFaults([{ truncate: true }]);
      const reply = await postChat(emulator.url, chat);
      expect(reply.status).toBe(200);
      expect(reply.headers.get('content-type')).toBe('application/json');
      expect(reply.json).toBeNull();
      expect(reply.text.startsWith('{"id":"chatcmpl-')).toBe(true);
      expect(() => JSON.parse(reply.text)).toThrow(SyntaxError);
    });

    it('sends a non-JSON body with its content type and status', async () => {
      emulator.setFaults([
        { body: '<html><body>Bad gateway</body></html>', contentType: 'text/html', status: 502 },
      ]);
      const reply = await postChat(emulator.url, chat);
      expect(reply.status).toBe(502);
      expect(reply.headers.get('content-type')).toBe('text/html');
      expect(reply.text).toBe('<html><body>Bad gateway</body></html>');
    });

    it('sends a non-JSON body with status 200 by default', async () => {
      emulator.setFaults([{ body: 'upstream says hi' }]);
      const reply = await postChat(emulator.url, chat);
      expect(reply.status).toBe(200);
      expect(reply.text).toBe('upstream says hi');
    });

    it('sends 200 with an empty body', async () => {
      emulator.setFaults([{ emptyBody: true }]);
      const reply = await postChat(emulator.url, chat);
      expect(reply.status).toBe(200);
      expect(reply.text).toBe('');
    });
  });

  describe('reply faults', () => {
    it('answers with no choices but keeps the usage', async () => {
      emulator.setFaults([{ noChoices: true }]);
      const reply = await postChat(emulator.url, chat);
      expect(reply.status).toBe(200);
      expect(reply.json.choices).toEqual([]);
      expect(reply.json.usage.prompt_tokens).toBeGreaterThan(0);
    });

    it('answers with empty content', async () => {
      emulator.setFaults([{ emptyContent: true, times: 1 }]);
      const json = { ...chat, response_format: { type: 'json_object' } };
      const first = await postChat(emulator.url, json);
      const second = await postChat(emulator.url, json);
      expect(first.json.choices[0].message.content).toBe('');
      expect(JSON.parse(second.json.choices[0].message.content)).toHaveProperty('answer');
    });

    it('leaves error answers as they are', async () => {
      emulator.setFaults([{ noChoices: true }]);
      const reply = await postChat(emulator.url, { ...chat, model: 'primary-v4.1-flash' });
      expect(reply.status).toBe(400);
      expect(reply.json.error.code).toBe('model_not_found');
    });
  });

  describe('a delay', () => {
    it('holds the answer while later requests are answered', async () => {
      emulator.setFaults([{ requests: 1, delayMs: 60_000 }]);
      let delayedSettled = false;
      const delayed = postChat(emulator.url, chat).finally(() => {
        delayedSettled = true;
      });
      while (emulator.requests.length < 1) await new Promise((resolve) => setImmediate(resolve));
      const quick = await postChat(emulator.url, chat);
      expect(quick.status).toBe(200);
      expect(delayedSettled).toBe(false);
      await emulator.close();
      await expect(delayed).rejects.toThrow(TypeError);
    });

    it('answers normally once the delay is over', async () => {
      emulator.setFaults([{ delayMs: 5 }]);
      const reply = await postChat(emulator.url, chat);
      expect(reply.status).toBe(200);
      expect(reply.json.choices[0].message.content).toMatch(/^Answer to: Status of the nightly build/);
    });

    it('combines with a status', async () => {
      emulator.setFaults([{ delayMs: 1, status: 503 }]);
      expect((await postChat(emulator.url, chat)).status).toBe(503);
    });

    it('is cut short by close(), which ends the pending request', async () => {
      emulator.setFaults([{ delayMs: 60_000 }]);
      const pending = postChat(emulator.url, chat);
      while (emulator.requests.length < 1) await new Promise((resolve) => setImmediate(resolve));
      await emulator.close();
      await expect(pending).rejects.toThrow(TypeError);
    });
  });
});
