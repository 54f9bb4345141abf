import { countTokens, type Emulator, SUPPORTED_MODELS } from '@switchboard/emulator';
import { bodyOf, closeTestEmulators, startTestEmulator } from '@switchboard/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { ChatAdapter, type ChatMessage, ModelRejectedError } from '../../src/index.js';
import { failureOf } from '../support/failure-of.js';
import { WIRE_TRANSPORTS, type WireTransportCase } from '../support/wire-transports.js';

// Spec 4.3 (model listing, the alias), 7 (model id refused, /v1 refused) and 9.1 (unversioned addresses).

const KEY = 'wire-test-key-c62b';
const question: ChatMessage[] = [{ role: 'user', content: 'Name the riskiest change in this release.' }];

afterEach(closeTestEmulators);

async function start(): Promise<Emulator> {
  return startTestEmulator({ key: KEY });
}

function transportAt(wire: WireTransportCase, baseUrl: string) {
  return wire.make({ apiKey: KEY, baseUrl });
}

describe.each(WIRE_TRANSPORTS)('over $name', (wire) => {
  describe('the transport and ChatAdapter against the emulator, model ids', () => {
    describe('a product-style id the platform does not accept', () => {
      it('rejects with ModelRejectedError: a degradation, status 400, carrying the supported names', async () => {
        const emulator = await start();
        const adapter = new ChatAdapter(transportAt(wire, emulator.url));
        const failure = await failureOf(
          adapter.complete({ model: 'primary-v4.1-flash', messages: question }),
        );

        expect(ModelRejectedError.isInstance(failure)).toBe(true);
        expect(failure).toBeInstanceOf(ModelRejectedError);
        expect(failure).toMatchObject({
          kind: 'model_rejected',
          status: 400,
          degradation: true,
          retryable: false,
          model: 'primary-v4.1-flash',
          supportedModels: ['primary-flash', 'primary-v4-pro'],
        });
        expect(emulator.requests).toHaveLength(1);
        expect(bodyOf(emulator, 0).model).toBe('primary-v4.1-flash');
      });
    });

    describe('the alias primary-chat', () => {
      it('is sent as given and answered', async () => {
        const emulator = await start();
        const response = await new ChatAdapter(transportAt(wire, emulator.url)).complete({
          model: 'primary-chat',
          messages: question,
        });

        expect(bodyOf(emulator, 0).model).toBe('primary-chat');
        expect(response.content).toEqual(expect.stringContaining('Answer to: Name the riskiest change'));
      });
    });

    describe('listModels()', () => {
      it('reads GET /models into the ids the emulator accepts, through the transport', async () => {
        const emulator = await start();
        const models = await transportAt(wire, emulator.url).listModels();

        expect(models).toEqual([...SUPPORTED_MODELS]);
        expect(models).toEqual(['primary-flash', 'primary-v4-pro']);
        expect(emulator.requests[0]).toMatchObject({ method: 'GET', path: '/models' });
        expect(emulator.requests[0]?.headers.authorization).toBe('Bearer [redacted]');
      });

      it('returns the same ids through ChatAdapter.listModels()', async () => {
        const emulator = await start();
        const models = await new ChatAdapter(transportAt(wire, emulator.url)).listModels();

        expect(models).toEqual(['primary-flash', 'primary-v4-pro']);
        expect(emulator.requests).toHaveLength(1);
      });
    });
  });

  describe('against the emulator, a base address ending in /v1 (spec 7, 9.1)', () => {
    describe('a chat call', () => {
      it('reaches /v1/chat/completions and rejects with ChatError "bad_request", 404, naming the unversioned API', async () => {
        const emulator = await start();
        const adapter = new ChatAdapter(transportAt(wire, `${emulator.url}/v1`));
        const failure = await failureOf(adapter.complete({ model: 'primary-flash', messages: question }));

        expect(emulator.requests.map((request) => request.path)).toEqual(['/v1/chat/completions']);
        expect(failure).toMatchObject({ kind: 'bad_request', status: 404, retryable: false });
        expect(failure.message).toContain('unversioned');
        expect(failure.message).toContain(`${emulator.url}/v1/chat/completions`);
      });
    });

    describe('listModels()', () => {
      it('rejects with ChatError "bad_request", 404, as well', async () => {
        const emulator = await start();
        const failure = await failureOf(transportAt(wire, `${emulator.url}/v1/`).listModels());

        expect(emulator.requests.map((request) => request.path)).toEqual(['/v1/models']);
        expect(failure).toMatchObject({ kind: 'bad_request', status: 404 });
        expect(failure.message).toContain('unversioned');
      });
    });
  });

  describe('ChatAdapter, an answer cut by the cap', () => {
    describe('a bounded copy with a small n', () => {
      it('gets finish_reason "length" and at most n content tokens', async () => {
        const emulator = await start();
        const response = await new ChatAdapter(transportAt(wire, emulator.url))
          .bounded(5)
          .complete({ model: 'primary-flash', messages: question });

        expect(bodyOf(emulator, 0).max_tokens).toBe(5);
        expect(response.finishReason).toBe('length');
        expect(countTokens(response.content ?? '')).toBe(5);
      });
    });

    describe('the unbounded original', () => {
      it('gets finish_reason "stop" and a longer answer', async () => {
        const emulator = await start();
        const response = await new ChatAdapter(transportAt(wire, emulator.url)).complete({
          model: 'primary-flash',
          messages: question,
        });

        expect(response.finishReason).toBe('stop');
        expect(countTokens(response.content ?? '')).toBeGreaterThan(5);
      });
    });
  });
});
