import { closeTestEmulators } from '@switchboard/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import type { AttemptOutcome, CallRecord, ChatDelta, CompleteRequest } from '../../src/index.js';
import { failureOf } from '../support/failure-of.js';
import { closeLoopbackServers } from '../support/listen-on-loopback.js';
import { adapterOn, collect, eventually, settled, textOf } from '../support/streaming.js';
import { WIRE_TRANSPORTS } from '../support/wire-transports.js';

afterEach(closeTestEmulators);
afterEach(closeLoopbackServers);

const request: CompleteRequest = {
  model: 'primary-flash',
  messages: [{ role: 'user', content: 'Summarise the release notes.' }],
};

describe.each(WIRE_TRANSPORTS)('over $name', (wire) => {
  describe('ChatAdapter.stream: stopping early', () => {
    it('abort() closes the connection at once; response rejects aborted with what arrived', async () => {
      const { emulator, adapter } = await adapterOn(wire);
      emulator.setFaults([{ stream: { endless: true } }]);
      const records: CallRecord[] = [];
      adapter.observe({ afterCall: (record) => records.push(record) });
      const stream = adapter.stream(request);
      const deltas: ChatDelta[] = [];
      const reading = failureOf(
        (async () => {
          for await (const delta of stream) {
            deltas.push(delta);
            if (deltas.length === 5) stream.abort(new Error('enough'));
          }
        })(),
      );
      const error = await failureOf(stream.response);
      expect(await reading).toBe(error);
      expect(error.kind).toBe('aborted');
      expect(error.partial?.content).toBe(textOf(deltas, 'content'));
      expect(deltas).toHaveLength(5);
      await eventually(() => emulator.inFlight === 0);
      expect(records).toHaveLength(1);
      expect(records[0]?.error?.kind).toBe('aborted');
      expect(records[0]?.priceSource).toBe('estimate');
    });

    it('leaving a for-await loop early (break) closes the connection and rejects response aborted', async () => {
      const { emulator, adapter } = await adapterOn(wire);
      emulator.setFaults([{ stream: { endless: true } }]);
      const stream = adapter.stream(request);
      let count = 0;
      for await (const _delta of stream) {
        count += 1;
        if (count === 3) break;
      }
      const error = await failureOf(stream.response);
      expect(error.kind).toBe('aborted');
      expect(error.message).toContain('aborted');
      await eventually(() => emulator.inFlight === 0);
    });

    it("the caller's signal closes the connection, also while waiting for the first event", async () => {
      const { emulator, adapter } = await adapterOn(wire);
      emulator.setFaults([{ stream: { stallAfterEvents: 0 } }]);
      const controller = new AbortController();
      const stream = adapter.stream({ ...request, signal: controller.signal });
      await eventually(() => emulator.inFlight === 1);
      controller.abort();
      const error = await failureOf(stream.response);
      expect(error.kind).toBe('aborted');
      expect(error.partial).toBeUndefined();
      await eventually(() => emulator.inFlight === 0);
    });

    it('a stream nobody reads or awaits raises no unhandled rejection when aborted', async () => {
      const { adapter } = await adapterOn(wire);
      const stream = adapter.stream(request);
      stream.abort();
      expect((await failureOf(stream.response)).kind).toBe('aborted');
    });
  });

  describe('ChatAdapter.stream: JSON mode', () => {
    const json: CompleteRequest = { ...request, jsonObject: true };

    it('holds whitespace-only content back until the JSON starts, then yields it with it', async () => {
      const { emulator, adapter } = await adapterOn(wire);
      emulator.setFaults([{ stream: { leadingWhitespace: '\n\n \n' } }]);
      const stream = adapter.stream(json);
      const deltas = await collect(stream);
      const response = await stream.response;
      expect(deltas[0]).toMatchObject({ type: 'content' });
      expect(deltas[0]?.type === 'content' && deltas[0].text.startsWith('\n\n \n{')).toBe(true);
      expect(deltas.some((delta) => delta.type === 'content' && delta.text.trim() === '')).toBe(false);
      expect(textOf(deltas, 'content')).toBe(response.content);
      expect(JSON.parse(response.content ?? '')).toHaveProperty('answer');
    });

    it('retries a stream of only whitespace once, transparently: the caller sees only the second answer', async () => {
      const { emulator, adapter } = await adapterOn(wire);
      emulator.setFaults([{ emptyContent: true, stream: { leadingWhitespace: '\n\n' }, times: 1 }]);
      const stream = adapter.stream(json);
      const deltas = await collect(stream);
      const response = await stream.response;
      expect(response.calls).toHaveLength(2);
      expect(textOf(deltas, 'content')).toBe(response.content);
      expect(JSON.parse(response.content ?? '')).toHaveProperty('answer');
      expect(emulator.requests).toHaveLength(2);
    });

    it('does not retry whitespace-only JSON in a bounded copy, which yields it at the end', async () => {
      const { emulator, adapter } = await adapterOn(wire);
      emulator.setFaults([{ emptyContent: true, stream: { leadingWhitespace: '\n\n' } }]);
      const stream = adapter.bounded(100).stream(json);
      const deltas = await collect(stream);
      const response = await stream.response;
      expect(response.calls).toHaveLength(1);
      expect(response.content).toBe('\n\n');
      expect(deltas).toEqual([{ type: 'content', text: '\n\n' }]);
      expect(emulator.requests).toHaveLength(1);
    });
  });

  describe('ChatAdapter.stream: everything else as for complete()', () => {
    it('tells observers of each attempt and one record per raw call; a bounded copy makes one attempt', async () => {
      const { emulator, adapter } = await adapterOn(wire);
      const attempts: number[] = [];
      const outcomes: AttemptOutcome[] = [];
      const records: CallRecord[] = [];
      adapter.observe({
        beforeAttempt: (info) => {
          attempts.push(info.attempt);
          return { end: (outcome) => void outcomes.push(outcome) };
        },
        afterCall: (record) => records.push(record),
      });
      emulator.setFaults([{ status: 503, times: 1 }]);
      const response = await adapter.forRole('judge').stream(request).response;
      expect(attempts).toEqual([1, 2]);
      expect(outcomes.map((outcome) => (outcome.error as { kind?: string } | null)?.kind ?? null)).toEqual([
        'server',
        null,
      ]);
      expect(outcomes[1]?.record).toBe(response.calls[0]);
      expect(records).toEqual(response.calls);
      expect(records[0]?.role).toBe('judge');

      emulator.setFaults([{ stream: { cutAfterEvents: 1 } }]);
      const error = await failureOf(adapter.bounded(50).stream(request).response);
      expect(error.kind).toBe('connection');
      expect(records.at(-1)?.attempts).toBe(1);
      expect(emulator.requests.at(-1)?.body).toMatchObject({ max_tokens: 50 });
    });

    it('a refused call fails typed before anything streams, its error and record as for complete()', async () => {
      const { adapter } = await adapterOn(wire);
      const error = await failureOf(adapter.stream({ ...request, model: 'primary-v4.1-flash' }).response);
      expect(error.kind).toBe('model_rejected');
      expect(error.message).not.toContain('stream-wire-key');
    });

    it('reads a 10,000-event stream whole, equal to its usage', async () => {
      const { adapter } = await adapterOn(wire, { answerTokens: 10_000 });
      const stream = adapter.stream(request);
      const deltas = await collect(stream);
      const response = await stream.response;
      expect(deltas.length).toBeGreaterThanOrEqual(10_000);
      expect(textOf(deltas, 'content')).toBe(response.content);
      expect(response.calls[0]?.usage?.completion_tokens).toBe(10_000);
    });

    it('pulls nothing more off the socket while its reader falls behind an endless stream, over 10,000 events', async () => {
      // Counts the body bytes the client takes off the socket (a tap between it and the emulator).
      const { emulator, adapter, tap } = await adapterOn(wire, {}, {}, { tapped: true });
      const pulled = () => tap?.pulled() ?? 0;
      emulator.setFaults([{ stream: { endless: true } }]);
      const stream = adapter.stream(request);
      const iterator = stream[Symbol.asyncIterator]();
      await iterator.next();
      // The server writes as fast as the client reads: a client that kept reading would queue it all.
      // Once the socket buffers between them are full, a client that stopped reading stops the flow.
      await settled(pulled);
      const before = pulled();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(pulled() - before).toBe(0);
      const start = process.memoryUsage().heapUsed;
      let peak = 0;
      for (let count = 1; count <= 10_000; count += 1) {
        const next = await iterator.next();
        if (next.done) throw new Error('the endless stream ended');
        if (count % 1000 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed - start);
      }
      stream.abort();
      expect((await failureOf(stream.response)).kind).toBe('aborted');
      expect(peak).toBeLessThan(32 * 1024 * 1024);
      await eventually(() => emulator.inFlight === 0);
    });
  });
});
