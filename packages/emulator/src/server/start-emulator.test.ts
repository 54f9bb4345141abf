import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { postChat, request, user } from '../../test/support/test-support.js';
import { type Emulator, startEmulator } from './start-emulator.js';

describe('startEmulator', () => {
  const started: Emulator[] = [];
  const start = async (options: Parameters<typeof startEmulator>[0] = {}) => {
    const emulator = await startEmulator(options);
    started.push(emulator);
    return emulator;
  };
  afterEach(async () => {
    await Promise.all(started.splice(0).map((emulator) => emulator.close()));
  });

  describe('listening', () => {
    it('listens on 127.0.0.1 on a free port, with an unversioned base URL', async () => {
      const emulator = await start();
      expect(emulator.url).toBe(`http://127.0.0.1:${emulator.port}`);
      expect(emulator.port).toBeGreaterThan(0);
      expect((await request(emulator.url, '/models')).status).toBe(200);
    });

    it('listens on the given port', async () => {
      const first = await start();
      const port = first.port;
      await first.close();
      const second = await start({ port });
      expect(second.url).toBe(`http://127.0.0.1:${port}`);
    });

    it('rejects when the port is taken', async () => {
      const first = await start();
      await expect(startEmulator({ port: first.port })).rejects.toThrow(/EADDRINUSE/);
    });
  });

  describe('bad options', () => {
    it('throws errors naming the option', async () => {
      await expect(startEmulator({ port: -1 })).rejects.toThrow(
        'options.port must be an integer from 0 to 65535',
      );
      await expect(startEmulator({ key: '' })).rejects.toThrow('options.key must be a non-empty string');
      await expect(startEmulator({ answerTokens: 0 })).rejects.toThrow(
        'options.answerTokens must be a positive',
      );
      await expect(startEmulator({ cacheBlockTokens: 0 })).rejects.toThrow(
        'cacheBlockTokens must be a positive',
      );
      await expect(startEmulator({ emptyJson: 'yes' as never })).rejects.toThrow('options.emptyJson must be');
      await expect(startEmulator({ faults: [{ status: 1 }] })).rejects.toThrow('faults[0].status');
      await expect(startEmulator({ flavor: 'other' as never })).rejects.toThrow(
        'options.flavor must be one of primary, gateway',
      );
      await expect(startEmulator({ maxRequestBytes: 0 })).rejects.toThrow(
        'options.maxRequestBytes must be a positive integer, got 0',
      );
      await expect(startEmulator({ maxRecordedRequests: 1.5 })).rejects.toThrow(
        'options.maxRecordedRequests must be a positive integer',
      );
      await expect(startEmulator({ modelRejection: 'rude' as never })).rejects.toThrow(
        'options.modelRejection must be one of listing, but-you-passed, not-exist',
      );
    });

    it('rejects a bad plan in setFaults and keeps the old one', async () => {
      const emulator = await start({ faults: [{ status: 503 }] });
      expect(() => emulator.setFaults([{ nope: true } as never])).toThrow(
        "faults[0] has an unknown field 'nope'",
      );
      expect((await request(emulator.url, '/models')).status).toBe(503);
    });
  });

  describe('recording requests', () => {
    it('records method, path, headers and parsed body of every request in order', async () => {
      const emulator = await start();
      const body = { model: 'primary-flash', messages: [user('hi')] };
      await postChat(emulator.url, body, { 'x-trace': 'abc' });
      await request(emulator.url, '/models?x=1');
      await postChat(emulator.url, '{not json');
      expect(emulator.requests.map(({ number, method, path }) => ({ number, method, path }))).toEqual([
        { number: 1, method: 'POST', path: '/chat/completions' },
        { number: 2, method: 'GET', path: '/models?x=1' },
        { number: 3, method: 'POST', path: '/chat/completions' },
      ]);
      expect(emulator.requests[0]?.body).toEqual(body);
      expect(emulator.requests[0]?.headers['x-trace']).toBe('abc');
      expect(emulator.requests[1]?.body).toBeNull();
      expect(emulator.requests[2]?.body).toBeNull();
    });

    it('redacts the authorization header, keeping the scheme', async () => {
      const key = 'sk-secret-value-123';
      const emulator = await start({ key });
      await request(emulator.url, '/models', 'GET', { authorization: `Bearer ${key}`, 'x-api-key': key });
      const recorded = emulator.requests[0];
      expect(recorded?.headers.authorization).toBe('Bearer [redacted]');
      expect(recorded?.headers['x-api-key']).toBe('[redacted]');
      expect(JSON.stringify(emulator.requests)).not.toContain(key);
    });

    it('records requests that a fault answers', async () => {
      const emulator = await start({ faults: [{ reset: true }] });
      await expect(postChat(emulator.url, { model: 'primary-flash' })).rejects.toThrow();
      expect(emulator.requests).toHaveLength(1);
      expect(emulator.requests[0]?.body).toEqual({ model: 'primary-flash' });
    });
  });

  describe('reset', () => {
    it('forgets requests, numbering, the prefix cache and the fault plan', async () => {
      const emulator = await start({ faults: [{ requests: 3, status: 500 }] });
      const body = { model: 'primary-flash', messages: [user('one two three four five six seven eight')] };
      await postChat(emulator.url, body);
      await postChat(emulator.url, body);
      emulator.reset();
      expect(emulator.requests).toEqual([]);
      const reply = await postChat(emulator.url, body);
      expect(reply.json.usage.prompt_cache_hit_tokens).toBe(0);
      expect(emulator.requests[0]?.number).toBe(1);
      await postChat(emulator.url, body);
      expect((await postChat(emulator.url, body)).status).toBe(200);
    });
  });

  describe('close', () => {
    it('stops listening: a new connection is refused', async () => {
      const emulator = await start();
      await request(emulator.url, '/models');
      await emulator.close();
      await expect(fetch(`${emulator.url}/models`)).rejects.toMatchObject({
        cause: expect.objectContaining({ code: 'ECONNREFUSED' }),
      });
    });

    it('closes kept-alive connections instead of waiting for them', async () => {
      const emulator = await start();
      const socketClosed = new Promise<void>((resolve, reject) => {
        const outgoing = httpRequest(`${emulator.url}/models`, { headers: { connection: 'keep-alive' } });
        outgoing.on('response', (response) => {
          response.resume();
          response.on('end', () => {
            outgoing.socket?.on('close', () => resolve());
            void emulator.close();
          });
        });
        outgoing.on('error', reject);
        outgoing.end();
      });
      await socketClosed;
      await emulator.close();
    });

    it('can be called twice', async () => {
      const emulator = await start();
      await Promise.all([emulator.close(), emulator.close()]);
      await expect(emulator.close()).resolves.toBeUndefined();
    });
  });
});
