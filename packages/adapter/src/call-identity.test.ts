import { hostname } from 'node:os';
import { closeTestEmulators, startTestEmulator } from '@switchboard/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { watcher } from '../test/support/call-watcher.js';
import { answer, PlainTransport, RawTransport } from '../test/support/raw-transport.js';
import { ChatAdapter } from './chat-adapter.js';
import type { CompleteRequest } from './chat-client.js';
import { FetchTransport } from './fetch-transport.js';

const request: CompleteRequest = { model: 'primary-flash', messages: [{ role: 'user', content: 'hi' }] };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

afterEach(closeTestEmulators);

describe('CallRecord callId, host and pid', () => {
  it('names each raw call once: a new UUID per call, with the host and process that made it', async () => {
    const watch = watcher();
    const adapter = new ChatAdapter(new RawTransport([answer('a'), answer('b')]), { observers: [watch] });
    const first = await adapter.complete(request);
    const second = await adapter.forRole('judge').complete(request);
    const [one, two] = [first.calls[0], second.calls[0]];
    expect(one?.callId).toMatch(UUID);
    expect(two?.callId).toMatch(UUID);
    expect(one?.callId).not.toBe(two?.callId);
    for (const record of [one, two]) expect(record).toMatchObject({ host: hostname(), pid: process.pid });
    expect(watch.attempts.map((info) => info.callId)).toEqual([one?.callId, two?.callId]);
    // Records made by a transport without the raw path carry them too.
    const plain = await new ChatAdapter(new PlainTransport([{ role: 'assistant', content: 'c' }])).complete(
      request,
    );
    expect(plain.calls[0]?.callId).toMatch(UUID);
  });

  it('keeps one id across a call’s retries, and gives the empty-JSON retry (a call of its own) another', async () => {
    const emulator = await startTestEmulator({ faults: [{ status: 503, times: 1 }] });
    const watch = watcher();
    const adapter = new ChatAdapter(new FetchTransport({ apiKey: 'test-key', baseUrl: emulator.url }), {
      observers: [watch],
    });
    const response = await adapter.complete(request);
    const record = response.calls[0];
    expect(record?.attempts).toBe(2);
    expect(watch.attempts.map((info) => [info.attempt, info.callId])).toEqual([
      [1, record?.callId],
      [2, record?.callId],
    ]);

    const json = await new ChatAdapter(new RawTransport([answer(' '), answer('{}')])).complete({
      ...request,
      jsonObject: true,
    });
    expect(json.calls).toHaveLength(2);
    expect(json.calls[0]?.callId).not.toBe(json.calls[1]?.callId);
  });

  it('keeps one id for a stream from its first attempt to its end', async () => {
    const emulator = await startTestEmulator({ faults: [{ status: 503, times: 1 }] });
    const watch = watcher();
    const adapter = new ChatAdapter(new FetchTransport({ apiKey: 'test-key', baseUrl: emulator.url }), {
      observers: [watch],
    });
    const stream = adapter.stream(request);
    for await (const _delta of stream) {
      // read to the end
    }
    const response = await stream.response;
    const record = response.calls[0];
    expect(record).toMatchObject({ streamed: true, attempts: 2, host: hostname(), pid: process.pid });
    expect(record?.callId).toMatch(UUID);
    expect(watch.attempts.map((info) => info.callId)).toEqual([record?.callId, record?.callId]);
    expect(watch.records).toEqual([record]);
  });
});
