// OpenAIClientTransport: a caller's own configured `openai` client, over real HTTP to the
// emulator. The client builds and sends each request (its headers, its retries); Switchboard
// reads the reply as with FetchTransport: the same records, costs, streams and typed errors.
import { inspect } from 'node:util';
import { closeTestEmulators, startTestEmulator } from '@switchboard/test-support';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type CallRecord,
  ChatAdapter,
  ChatError,
  FetchTransport,
  OpenAIClientTransport,
} from '../../src/index.js';
import { pricedAs } from '../support/priced-as.js';
import { collect } from '../support/streaming.js';

const KEY = 'sk-client-transport-9d41';
const request = {
  model: 'primary-flash',
  messages: [{ role: 'user' as const, content: 'Which step of the build failed?' }],
  maxTokens: 64,
};

afterEach(closeTestEmulators);

async function both(clientOptions: ConstructorParameters<typeof OpenAI>[0] = {}) {
  const emulator = await startTestEmulator({ key: KEY });
  const client = new OpenAI({ apiKey: KEY, baseURL: emulator.url, maxRetries: 0, ...clientOptions });
  const records: CallRecord[] = [];
  const adapter = new ChatAdapter(new OpenAIClientTransport(client), { endpoint: pricedAs('primary-flash') });
  adapter.observe({ afterCall: (record) => void records.push(record) });
  const reference = new ChatAdapter(new FetchTransport({ apiKey: KEY, baseUrl: emulator.url }), {
    endpoint: pricedAs('primary-flash'),
  });
  return { emulator, adapter, reference, records };
}

describe('OpenAIClientTransport', () => {
  it('makes the same call, record and cost as FetchTransport, through the caller’s client and its headers', async () => {
    const { emulator, adapter, reference, records } = await both({
      defaultHeaders: { 'x-team-proxy': 'on' },
    });
    const ours = await adapter.complete(request);
    const [sentByClient] = emulator.requests;
    // A fresh prefix cache, so both calls are billed alike.
    emulator.reset();
    const theirs = await reference.complete(request);
    const [sentByFetch] = emulator.requests;
    expect(ours.content).toBe(theirs.content);
    expect(ours.costUsd).toBe(theirs.costUsd);
    expect(records[0]).toMatchObject({ settlement: 'exact', priceSource: 'endpoint', attempts: 1 });
    expect(sentByClient?.headers['x-team-proxy']).toBe('on');
    expect(sentByClient?.body).toEqual(sentByFetch?.body);
  });

  it('streams, with the record settled exactly on the final usage', async () => {
    const { adapter, records } = await both();
    const stream = adapter.stream(request);
    const deltas = await collect(stream);
    const response = await stream.response;
    expect(deltas.length).toBeGreaterThan(0);
    expect(response.content).toBe(deltas.map((delta) => ('text' in delta ? delta.text : '')).join(''));
    expect(records[0]).toMatchObject({ streamed: true, settlement: 'exact' });
    expect(records[0]?.costUsd).toBeGreaterThan(0);
  });

  it('types an error status as any transport does, without the key', async () => {
    const { emulator, adapter, records } = await both();
    emulator.setFaults([{ status: 429, message: `slow down, ${KEY}` }]);
    const error = await adapter.complete(request).catch((failure: unknown) => failure);
    expect(ChatError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ kind: 'rate_limited', status: 429 });
    expect(String((error as Error).message)).not.toContain(KEY);
    expect(records[0]).toMatchObject({ settlement: 'none', attempts: 1 });
  });

  it('leaves retries to the caller’s client: one attempt of ours, the client’s own retries on the wire', async () => {
    const { emulator, adapter } = await both({ maxRetries: 2 });
    emulator.setFaults([{ status: 503, times: 2 }]);
    const response = await adapter.complete(request);
    expect(response.calls[0]?.attempts).toBe(1);
    expect(emulator.requests).toHaveLength(3);
  });

  it('lists models, and never shows the key', async () => {
    const { emulator } = await both();
    const transport = new OpenAIClientTransport(new OpenAI({ apiKey: KEY, baseURL: emulator.url }));
    expect(await transport.listModels()).toContain('primary-flash');
    expect(inspect(transport)).toBe(`OpenAIClientTransport { baseUrl: '${emulator.url}', maxAttempts: 1 }`);
    expect(JSON.stringify(transport)).not.toContain(KEY);
  });

  it('refuses something that is not an OpenAI client, naming what it needs', () => {
    expect(() => new OpenAIClientTransport({} as OpenAI)).toThrow(/needs an OpenAI client/);
  });
});
