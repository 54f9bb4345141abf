import { sharedEmulator } from '@switchboard/test-support';
import { describe, expect, it } from 'vitest';
import { ChatAdapter, ModelRejectedError } from '../../src/index.js';
import { failureOf } from '../support/failure-of.js';
import { chatRequests, transportRequest, transportTo } from '../support/transport-to.js';
import { WIRE_TRANSPORTS } from '../support/wire-transports.js';

// Issue 10, observations 6 (the transport's part) and 8: real replies of the platforms that were
// misread — a 200 carrying an error object, 402, two more model-rejected wordings, whitespace and
// keep-alive newlines, a body cut off after the headers, x-should-retry, a 409, an error body
// nested 100k levels deep, the gateway's metadata.raw — and a key with a trailing newline.

const KEY = 'wire-replies-key-8d3a';
const emulator = sharedEmulator({ key: KEY });
const request = transportRequest('Which alerts fired overnight?', 10);

describe.each(WIRE_TRANSPORTS)('over $name', (wire) => {
  describe('a 200 carrying an error object (issue 10.6)', () => {
    it.each([false, true])(
      'types {error: {code: 429}} as rate_limited and retries it (withChoices %s)',
      async (withChoices) => {
        emulator().setFaults([{ errorInBody: { code: 429, withChoices, raw: 'upstream quota exhausted' } }]);
        const error = await failureOf(transportTo(emulator(), KEY, {}, wire).completeChatRaw(request));
        expect(error).toMatchObject({ kind: 'rate_limited', status: 429, retryable: true });
        expect(error.message).toContain('200 OK, carrying an error with code 429');
        expect(error.message).toContain('upstream quota exhausted');
        expect(chatRequests(emulator())).toBe(3);
      },
    );

    it('succeeds when the retry is answered', async () => {
      emulator().setFaults([{ errorInBody: { code: 502 }, times: 1 }]);
      const reply = await transportTo(emulator(), KEY, {}, wire).completeChatRaw(request);
      expect(reply).toHaveProperty('choices');
      expect(chatRequests(emulator())).toBe(2);
    });

    it('is never an empty success in JSON mode, and not retried as empty JSON', async () => {
      emulator().setFaults([{ errorInBody: { code: 400, withChoices: true } }]);
      const adapter = new ChatAdapter(transportTo(emulator(), KEY, {}, wire));
      const error = await failureOf(
        adapter.complete({ model: 'primary-flash', messages: request.messages, jsonObject: true }),
      );
      expect(error).toMatchObject({ kind: 'bad_request', status: 400, retryable: false });
      expect(chatRequests(emulator())).toBe(1);
    });
  });

  describe('HTTP 402 (issue 10.6)', () => {
    it('is kind billing, not retryable, after one request', async () => {
      emulator().setFaults([{ status: 402 }]);
      const error = await failureOf(transportTo(emulator(), KEY, {}, wire).completeChatRaw(request));
      expect(error).toMatchObject({ kind: 'billing', status: 402, retryable: false });
      expect(error.message).toContain('402 Payment Required');
      expect(chatRequests(emulator())).toBe(1);
    });
  });

  describe('the model-rejected wordings (issue 10.6)', () => {
    it('reads "The supported API model names are A or B, but you passed C." as exactly [A, B]', async () => {
      emulator().setFaults([{ modelRejected: 'but-you-passed' }]);
      const error = await failureOf(transportTo(emulator(), KEY, {}, wire).completeChatRaw(request));
      expect(ModelRejectedError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ kind: 'model_rejected', degradation: true, retryable: false });
      expect((error as ModelRejectedError).supportedModels).toEqual(['primary-flash', 'primary-v4-pro']);
    });

    it('reads "Model Not Exist" as model_rejected with an empty list', async () => {
      emulator().setFaults([{ modelRejected: 'not-exist' }]);
      const error = await failureOf(transportTo(emulator(), KEY, {}, wire).completeChatRaw(request));
      expect(error).toMatchObject({ kind: 'model_rejected', model: 'primary-flash', supportedModels: [] });
    });
  });

  describe('bodies of the overloaded platform (issue 10.6)', () => {
    it('retries a whitespace-only 200 as a retryable bad_reply', async () => {
      emulator().setFaults([{ whitespaceBody: true }]);
      const error = await failureOf(transportTo(emulator(), KEY, {}, wire).completeChatRaw(request));
      expect(error).toMatchObject({ kind: 'bad_reply', status: 200, retryable: true });
      expect(error.message).toContain('only whitespace');
      expect(chatRequests(emulator())).toBe(3);
    });

    it('succeeds when a whitespace-only 200 is followed by an answer', async () => {
      emulator().setFaults([{ whitespaceBody: true, times: 1 }]);
      await transportTo(emulator(), KEY, {}, wire).completeChatRaw(request);
      expect(chatRequests(emulator())).toBe(2);
    });

    it('reads a reply after keep-alive newlines', async () => {
      emulator().setFaults([{ keepAliveNewlines: 3, keepAliveMs: 50 }]);
      const reply = await transportTo(emulator(), KEY, {}, wire).completeChatRaw(request);
      expect(reply).toHaveProperty('choices');
      expect(chatRequests(emulator())).toBe(1);
    });

    it('retries a body cut off after the headers, and succeeds', async () => {
      emulator().setFaults([{ cutOff: true, times: 1 }]);
      const reply = await transportTo(emulator(), KEY, {}, wire).completeChatRaw(request);
      expect(reply).toHaveProperty('choices');
      expect(chatRequests(emulator())).toBe(2);
    });

    it('retries a body cut off right after the headers, and succeeds', async () => {
      emulator().setFaults([{ cutOffAfterBytes: 0, times: 1 }]);
      const reply = await transportTo(emulator(), KEY, {}, wire).completeChatRaw(request);
      expect(reply).toHaveProperty('choices');
      expect(chatRequests(emulator())).toBe(2);
    });

    it('reports a body cut off on every attempt as a retryable bad_reply', async () => {
      emulator().setFaults([{ cutOff: true }]);
      const error = await failureOf(transportTo(emulator(), KEY, {}, wire).completeChatRaw(request));
      expect(error).toMatchObject({ kind: 'bad_reply', status: 200, retryable: true });
      expect(error.message).toContain('cut off');
      expect(chatRequests(emulator())).toBe(3);
    });
  });

  describe('an error body nested 100k levels deep (issue 10.6)', () => {
    it.each([
      [400, 'bad_request', 1],
      [503, 'server', 3],
    ] as const)('types a %i by its status, with no stack overflow', async (status, kind, requests) => {
      emulator().setFaults([{ deepErrorBody: 100_000, status }]);
      const error = await failureOf(transportTo(emulator(), KEY, {}, wire).completeChatRaw(request));
      expect(error).toMatchObject({ kind, status });
      expect(error.message).not.toMatch(/call stack/i);
      expect(chatRequests(emulator())).toBe(requests);
    });
  });

  describe('secrets in text (issue 10.8)', () => {
    it('redacts a key read from a file with its trailing newline, where the server echoes it trimmed', async () => {
      emulator().setFaults([
        {
          status: 400,
          body: `{"error":{"message":"invalid token ${KEY}"}}`,
          contentType: 'application/json',
        },
      ]);
      const transport = wire.make({ apiKey: `${KEY}\n`, baseUrl: emulator().url, maxAttempts: 1 });
      const error = await failureOf(transport.completeChatRaw(request));
      expect(error.message).toContain('invalid token ***');
      expect(error.message).not.toContain(KEY);
      expect(JSON.stringify(error.cause ?? null)).not.toContain(KEY);
    });
  });
});
