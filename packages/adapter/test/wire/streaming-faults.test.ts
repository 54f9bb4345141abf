import { costOf, nanoUsdOf, priceOf, usdOfNano } from '@switchboard/prices';
import { closeTestEmulators } from '@switchboard/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import type { CallRecord, ChatDelta, CompleteRequest, TransportStreamEvent } from '../../src/index.js';
import { failureOf } from '../support/failure-of.js';
import { adapterOn, collect, eventually, STREAM_KEY, textOf } from '../support/streaming.js';
import { WIRE_TRANSPORTS } from '../support/wire-transports.js';

afterEach(closeTestEmulators);

const request: CompleteRequest = {
  model: 'primary-flash',
  messages: [{ role: 'user', content: 'List the packages that price calls.' }],
};

/** The estimate a stream without usage must be priced at: the prompt's token bound plus the bytes received. */
// The estimate's rule: the messages' JSON text at 4 bytes a token, the output received at 4 bytes a
// token or one token a non-empty delta, whichever is more.
function estimateOf(messages: readonly unknown[], deltas: readonly ChatDelta[]): number | null {
  const prompt = Math.ceil(Buffer.byteLength(JSON.stringify(messages), 'utf8') / 4);
  const texts = deltas.filter((delta) => delta.type !== 'tool_call' && delta.text !== '');
  const bytes = texts.reduce(
    (sum, delta) => sum + Buffer.byteLength((delta as { text: string }).text, 'utf8'),
    0,
  );
  const output = Math.max(texts.length, Math.ceil(bytes / 4));
  const cost = costOf(priceOf('primary-flash'), {
    prompt_tokens: prompt,
    completion_tokens: output,
    total_tokens: prompt + output,
  });
  // Records carry the cost rounded to the nano-dollar.
  return cost === null ? null : usdOfNano(nanoUsdOf(cost));
}

/** Reads a stream until it fails; the deltas that came first and the failure. */
async function readUntilFailure(stream: AsyncIterable<ChatDelta>) {
  const deltas: ChatDelta[] = [];
  const error = await failureOf(
    (async () => {
      for await (const delta of stream) deltas.push(delta);
    })(),
  );
  return { deltas, error };
}

describe.each(WIRE_TRANSPORTS)('over $name', (wire) => {
  describe('ChatAdapter.stream: keep-alives and time', () => {
    it('hands keep-alive comments on as events, and they reset the idle timeout', async () => {
      const { emulator, adapter, transport } = await adapterOn(wire);
      // Six comments 300 ms apart: 1.8 s in all, past the 1.5 s timeout, each gap 1.2 s under it (room
      // for a loaded machine's late timers: only a gap of more than 1.5 s could end it).
      emulator.setFaults([{ stream: { keepAlives: 6, keepAliveMs: 300 } }]);
      const events: TransportStreamEvent[] = [];
      const open = await transport.streamChatRaw({
        model: 'primary-flash',
        messages: [...request.messages],
        tools: undefined,
        timeoutSeconds: 1.5,
        extraBody: {},
      });
      for await (const event of open) events.push(event);
      expect(events.slice(0, 6)).toEqual(Array(6).fill({ comment: ' keep-alive' }));
      expect(events.at(-1)).toEqual({ data: '[DONE]' });

      const response = await adapter.stream({ ...request, timeoutSeconds: 1.5 }).response;
      expect(response.content).not.toBe('');
      expect(response.calls[0]?.attempts).toBe(1);
    }, 30_000);

    it('ends a stream that stalls after output with an idle timeout carrying what arrived', async () => {
      const { emulator, adapter } = await adapterOn(wire);
      emulator.setFaults([{ stream: { stallAfterEvents: 4 } }]);
      const stream = adapter.stream({ ...request, timeoutSeconds: 0.3 });
      const { deltas, error } = await readUntilFailure(stream);
      expect(error.kind).toBe('timeout');
      expect(error.message).toContain('idle timeout');
      expect(deltas.length).toBe(3);
      expect(error.partial?.content).toBe(textOf(deltas, 'content'));
      expect(await failureOf(stream.response)).toBe(error);
      expect(emulator.requests).toHaveLength(1);
      await eventually(() => emulator.inFlight === 0);
    });

    it('retries a stream that stalls before its first delta, and the caller sees one answer', async () => {
      const { emulator, adapter } = await adapterOn(wire);
      emulator.setFaults([{ stream: { stallAfterEvents: 1 }, times: 1 }]);
      const stream = adapter.stream({ ...request, timeoutSeconds: 0.3 });
      const deltas = await collect(stream);
      const response = await stream.response;
      expect(textOf(deltas, 'content')).toBe(response.content);
      expect(response.calls).toHaveLength(1);
      expect(response.calls[0]?.attempts).toBe(2);
      expect(emulator.requests).toHaveLength(2);
    });

    it('bounds the whole stream by deadlineSeconds, however steady its events', async () => {
      const { emulator, adapter } = await adapterOn(wire);
      emulator.setFaults([{ stream: { endless: true, eventMs: 20 } }]);
      const started = performance.now();
      const stream = adapter.stream({
        ...request,
        timeoutSeconds: 5,
        deadlineSeconds: 0.4,
      } as CompleteRequest);
      const { deltas, error } = await readUntilFailure(stream);
      expect(error.kind).toBe('timeout');
      expect(error.retryable).toBe(false);
      expect(error.message).toContain('deadline');
      // Ended by the 0.4 s deadline, long before the 5 s timeout (ten times the deadline: room for a loaded machine).
      expect(performance.now() - started).toBeLessThan(4000);
      expect(deltas.length).toBeGreaterThan(3);
      await eventually(() => emulator.inFlight === 0);
    });
  });

  describe('ChatAdapter.stream: faults mid-stream', () => {
    it('a stream cut after output rejects with what arrived, and its record carries an estimated cost', async () => {
      const { emulator, adapter } = await adapterOn(wire);
      emulator.setFaults([{ stream: { cutAfterEvents: 6 } }]);
      const records: CallRecord[] = [];
      adapter.observe({ afterCall: (record) => records.push(record) });
      const stream = adapter.stream(request);
      const { deltas, error } = await readUntilFailure(stream);
      expect(error.kind).toBe('connection');
      expect(deltas).toHaveLength(5);
      const received = textOf(deltas, 'content');
      expect(error.partial?.content).toBe(received);
      expect(records).toHaveLength(1);
      const record = records[0] as CallRecord;
      expect(record.usage).toBeNull();
      expect(record.priceSource).toBe('estimate');
      expect(record.streamed).toBe(true);
      expect(record.error?.kind).toBe('connection');
      expect(record.costUsd).toBe(estimateOf(request.messages, deltas));
      expect(record.settlement).toBe('estimate');
      expect(record.costUsd).toBeGreaterThan(0);
      expect(error.partial?.costUsd).toBe(record.costUsd);
      expect(adapter.costUsd()).toBe(record.costUsd);
      expect(adapter.usage).toHaveLength(0);
    });

    it('retries a stream cut before its first delta, without repeating anything', async () => {
      const { emulator, adapter } = await adapterOn(wire);
      emulator.setFaults([{ stream: { cutAfterEvents: 1 }, times: 1 }]);
      const stream = adapter.stream(request);
      const deltas = await collect(stream);
      const response = await stream.response;
      expect(textOf(deltas, 'content')).toBe(response.content);
      expect(response.calls[0]?.attempts).toBe(2);
      expect(response.calls[0]?.usage).not.toBeNull();
      expect(response.calls[0]?.priceSource).toBe('endpoint');
    });

    it('types an error event before output as a 200 carrying an error, and retries it', async () => {
      const { emulator, adapter } = await adapterOn(wire);
      emulator.setFaults([{ stream: { errorAt: 1, errorCode: 429 }, times: 1 }]);
      const response = await adapter.stream(request).response;
      expect(response.calls[0]?.attempts).toBe(2);
      expect(emulator.requests).toHaveLength(2);
    });

    it('reads a 200 carrying a JSON error instead of events as that error, and retries it', async () => {
      const { emulator, adapter } = await adapterOn(wire);
      emulator.setFaults([{ errorInBody: { code: 429 }, times: 1 }]);
      const response = await adapter.stream(request).response;
      expect(response.calls[0]?.attempts).toBe(2);
      emulator.setFaults([{ errorInBody: { code: 402 } }]);
      expect((await failureOf(adapter.stream(request).response)).kind).toBe('billing');
    });

    it('reads a whole JSON reply to a streamed request (a server that does not stream) as one chunk', async () => {
      const { emulator, adapter } = await adapterOn(wire);
      const expected = await adapter.complete({ ...request, logprobs: true });
      // The same reply, served whole to the streamed request that follows.
      const whole = await fetch(`${emulator.url}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${STREAM_KEY}` },
        body: JSON.stringify(emulator.requests[0]?.body),
      }).then((response) => response.text());
      emulator.setFaults([{ body: whole, contentType: 'application/json' }]);
      const stream = adapter.stream(request);
      const deltas = await collect(stream);
      const response = await stream.response;
      expect(deltas).toEqual([{ type: 'content', text: expected.content }]);
      expect(response.content).toBe(expected.content);
      expect(response.logprobs).toEqual(expected.logprobs);
      expect(response.calls[0]?.usage).toEqual(JSON.parse(whole).usage);
    });

    it('types an error event after output by its code and ends the stream there', async () => {
      const { emulator, adapter } = await adapterOn(wire);
      emulator.setFaults([{ stream: { errorAt: 5, errorCode: 502 } }]);
      const { deltas, error } = await readUntilFailure(adapter.stream(request));
      expect(error.kind).toBe('server');
      expect(error.status).toBe(502);
      expect(error.message).toContain('carrying an error with code 502');
      expect(deltas).toHaveLength(3);
      expect(error.partial?.content).toBe(textOf(deltas, 'content'));
      expect(emulator.requests).toHaveLength(1);
    });

    it('fails a malformed event as bad_reply, without a retry', async () => {
      const { emulator, adapter } = await adapterOn(wire);
      emulator.setFaults([{ stream: { malformedAt: 4 } }]);
      const { deltas, error } = await readUntilFailure(adapter.stream(request));
      expect(error.kind).toBe('bad_reply');
      expect(error.message).toContain('not valid JSON');
      expect(deltas).toHaveLength(2);
      expect(emulator.requests).toHaveLength(1);
    });

    it('caps an endless stream at maxReplyBytes and drops the connection', async () => {
      const { emulator, adapter } = await adapterOn(wire, {}, {}, { maxReplyBytes: 256 * 1024 });
      emulator.setFaults([{ stream: { endless: true } }]);
      const { deltas, error } = await readUntilFailure(adapter.stream(request));
      expect(error.kind).toBe('bad_reply');
      expect(error.message).toContain('maxReplyBytes');
      expect(deltas.length).toBeGreaterThan(1000);
      await eventually(() => emulator.inFlight === 0);
    });

    it('caps one event at maxEventBytes', async () => {
      const { adapter } = await adapterOn(wire, { answerTokens: 5000 }, {}, { maxEventBytes: 64 });
      const { error } = await readUntilFailure(adapter.stream(request));
      expect(error.kind).toBe('bad_reply');
      expect(error.message).toContain('maxEventBytes');
    });

    it('treats a body that ends cleanly before its finish reason as cut off, and one without [DONE] after it as whole', async () => {
      const { emulator, adapter } = await adapterOn(wire);
      emulator.setFaults([{ stream: { endAfterEvents: 4 } }]);
      const { deltas, error } = await readUntilFailure(adapter.stream(request));
      expect(error.kind).toBe('connection');
      expect(error.message).toContain('ended before its last event');
      expect(deltas).toHaveLength(3);

      emulator.setFaults([{ stream: { noDone: true } }]);
      const response = await adapter.stream(request).response;
      expect(response.finishReason).toBe('stop');
      expect(response.calls[0]?.usage).not.toBeNull();
    });

    it('does not wait long on a server that holds the connection open after [DONE]', async () => {
      const { emulator, adapter, transport } = await adapterOn(wire);
      const open = await transport.streamChatRaw({
        model: 'primary-flash',
        messages: [...request.messages],
        tools: undefined,
        timeoutSeconds: 10,
        extraBody: { thinking: { type: 'disabled' } },
      });
      let events = 0;
      for await (const event of open) if ('data' in event) events += 1;
      emulator.setFaults([{ stream: { stallAfterEvents: events } }]);
      const started = performance.now();
      const response = await adapter.stream({ ...request, timeoutSeconds: 10 }).response;
      // Answered once [DONE]'s data arrived, not when the stalled connection's 10 s timeout ends it.
      expect(performance.now() - started).toBeLessThan(10_000);
      expect(response.finishReason).toBe('stop');
      expect(response.calls[0]?.error).toBeNull();
      await eventually(() => emulator.inFlight === 0);
    });

    it('accepts a stream without usage, recording an estimate marked as one', async () => {
      const { emulator, adapter } = await adapterOn(wire);
      emulator.setFaults([{ stream: { noUsage: true } }]);
      const stream = adapter.stream(request);
      const deltas = await collect(stream);
      const response = await stream.response;
      expect(response.calls[0]?.usage).toBeNull();
      expect(response.calls[0]?.priceSource).toBe('estimate');
      expect(response.costUsd).toBe(estimateOf(request.messages, deltas));
      expect(response.calls[0]?.settlement).toBe('estimate');
    });
  });
});
