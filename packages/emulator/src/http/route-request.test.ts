import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postChat, postJson, request, user } from '../../test/support/test-support.js';
import { type Emulator, startEmulator } from '../server/start-emulator.js';

describe('routeRequest', () => {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await startEmulator();
  });
  afterAll(async () => {
    await emulator.close();
  });

  describe('a /v1 path', () => {
    it('is a 404 whose JSON body tells the client the API is unversioned', async () => {
      const reply = await postJson(emulator.url, '/v1/chat/completions', {
        model: 'primary-flash',
        messages: [user('hi')],
      });
      expect(reply.status).toBe(404);
      expect(reply.headers.get('content-type')).toBe('application/json');
      expect(reply.json).toEqual({
        error: {
          message:
            "Not Found: '/v1/chat/completions' does not exist. The API is unversioned: use the base URL without /v1.",
          type: 'invalid_request_error',
          code: 'not_found',
        },
      });
    });

    it('rejects GET /v1/models the same way', async () => {
      const reply = await request(emulator.url, '/v1/models');
      expect(reply.status).toBe(404);
      expect(reply.json.error.message).toContain("'/v1/models' does not exist. The API is unversioned");
    });
  });

  describe('GET /models', () => {
    it('lists the accepted API model ids in OpenAI list shape', async () => {
      const reply = await request(emulator.url, '/models');
      expect(reply.status).toBe(200);
      expect(reply.json).toEqual({
        object: 'list',
        data: [
          { id: 'primary-flash', object: 'model', owned_by: 'primary' },
          { id: 'primary-v4-pro', object: 'model', owned_by: 'primary' },
        ],
      });
    });

    it('ignores a query string', async () => {
      expect((await request(emulator.url, '/models?limit=1')).status).toBe(200);
    });
  });

  describe('unknown paths and methods', () => {
    it('answers an unknown path with a 404 JSON error naming it', async () => {
      const reply = await request(emulator.url, '/completions');
      expect(reply.status).toBe(404);
      expect(reply.json.error).toMatchObject({
        message: "Not Found: '/completions' does not exist.",
        code: 'not_found',
      });
    });

    it('answers a wrong method with a 405 and an allow header', async () => {
      const chat = await request(emulator.url, '/chat/completions');
      expect(chat.status).toBe(405);
      expect(chat.headers.get('allow')).toBe('POST');
      expect(chat.json.error.code).toBe('method_not_allowed');
      const models = await request(emulator.url, '/models', 'DELETE');
      expect(models.status).toBe(405);
      expect(models.headers.get('allow')).toBe('GET');
    });
  });

  describe('bodies that are not JSON objects', () => {
    it('answers malformed JSON with a 400 naming the problem', async () => {
      const reply = await postChat(emulator.url, '{"model": "primary-flash",');
      expect(reply.status).toBe(400);
      expect(reply.json.error.message).toMatch(/^The request body is not valid JSON: /);
      expect(reply.json.error.param).toBe('body');
    });

    it('answers an empty body with a 400', async () => {
      const reply = await postChat(emulator.url, '');
      expect(reply.status).toBe(400);
      expect(reply.json.error.message).toBe('The request body is empty: expected a JSON object');
    });

    it('answers a JSON array with a 400', async () => {
      const reply = await postChat(emulator.url, '[1]');
      expect(reply.status).toBe(400);
      expect(reply.json.error.message).toBe('The request body must be a JSON object');
    });
  });
});

describe('routeRequest with a key', () => {
  const key = 'sk-emulator-test-key';
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await startEmulator({ key });
  });
  afterAll(async () => {
    await emulator.close();
  });

  describe('a request without credentials', () => {
    it('is a 401 with a JSON error body', async () => {
      const reply = await request(emulator.url, '/models');
      expect(reply.status).toBe(401);
      expect(reply.json.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
      expect(reply.json.error.message).toContain('no API key was given');
    });
  });

  describe('a request with a wrong key', () => {
    it('is a 401 whose body repeats neither key', async () => {
      const reply = await postChat(
        emulator.url,
        { model: 'primary-flash', messages: [user('hi')] },
        { authorization: 'Bearer sk-wrong-key' },
      );
      expect(reply.status).toBe(401);
      expect(reply.json.error.message).toBe('Authentication failed: the API key is invalid.');
      expect(reply.text).not.toContain(key);
      expect(reply.text).not.toContain('sk-wrong-key');
    });
  });

  describe('a request with the key', () => {
    it('is answered', async () => {
      const reply = await request(emulator.url, '/models', 'GET', { authorization: `Bearer ${key}` });
      expect(reply.status).toBe(200);
      expect(reply.json.data).toHaveLength(2);
    });
  });
});
