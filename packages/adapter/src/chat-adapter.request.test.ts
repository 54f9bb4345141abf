import type { TariffRef } from '@switchboard/prices';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { answer, PlainTransport, RawTransport } from '../test/support/raw-transport.js';
import type { AttemptOutcome } from './call-observer.js';
import type { CallRecord } from './call-record.js';
import { ChatAdapter } from './chat-adapter.js';
import type { ChatMessage, CompleteRequest, ToolSchema } from './chat-client.js';
import { ChatError } from './chat-error.js';
import type { ChatLogprobs, ChatResponse } from './chat-response.js';
import type { ChatTransport } from './chat-transport.js';
import type { FinishReason } from './finish-reason.js';

const request: CompleteRequest = { model: 'primary-flash', messages: [{ role: 'user', content: 'hi' }] };

describe('ChatAdapter per-call maxTokens', () => {
  it('sends max_tokens and keeps the empty-JSON retry of an unbounded adapter', async () => {
    const transport = new RawTransport([answer(''), answer('{}')]);
    const response = await new ChatAdapter(transport).complete({
      ...request,
      maxTokens: 40,
      jsonObject: true,
    });
    expect(transport.requests).toHaveLength(2);
    expect(transport.requests.map((sent) => sent.extraBody.max_tokens)).toEqual([40, 40]);
    expect(transport.copies).toHaveLength(0);
    expect(response.content).toBe('{}');
  });

  it.each([
    [100, 64, 64],
    [32, 64, 32],
  ])('sends the smaller of a bounded cap %i and the request cap %i', async (cap, maxTokens, sent) => {
    const transport = new RawTransport([answer('x')]);
    await new ChatAdapter(transport).bounded(cap).complete({ ...request, maxTokens });
    expect(transport.copies[0]?.requests[0]?.extraBody.max_tokens).toBe(sent);
  });

  it('leaves max_tokens out when maxTokens is undefined or null', async () => {
    const transport = new RawTransport([answer('x'), answer('y')]);
    const adapter = new ChatAdapter(transport);
    await adapter.complete({ ...request, maxTokens: undefined });
    await adapter.complete({ ...request, maxTokens: null as unknown as number });
    for (const sent of transport.requests) expect(sent.extraBody).not.toHaveProperty('max_tokens');
  });

  it.each([[0], [-1], [2.5], [Number.NaN], [Number.POSITIVE_INFINITY], ['10']])(
    'rejects maxTokens %j with a RangeError naming the field, sending nothing',
    async (maxTokens) => {
      const transport = new RawTransport([answer('x')]);
      await expect(
        new ChatAdapter(transport).complete({ ...request, maxTokens: maxTokens as number }),
      ).rejects.toThrow(
        new RangeError(`request.maxTokens must be a positive integer, got ${String(maxTokens)}`),
      );
      expect(transport.requests).toHaveLength(0);
    },
  );
});

describe('ChatAdapter signal', () => {
  it('passes the signal to the transport', async () => {
    const transport = new RawTransport([answer('x')]);
    const controller = new AbortController();
    await new ChatAdapter(transport).complete({ ...request, signal: controller.signal });
    expect(transport.requests[0]?.signal).toBe(controller.signal);
  });

  it('rejects an already aborted call with kind aborted before calling the transport', async () => {
    const transport = new RawTransport([answer('x')]);
    const records: CallRecord[] = [];
    const adapter = new ChatAdapter(transport, {
      observers: [{ afterCall: (record) => records.push(record) }],
    });
    const reason = new Error('user pressed ctrl-c');
    const error = await adapter.complete({ ...request, signal: AbortSignal.abort(reason) }).catch((e) => e);
    expect(ChatError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ kind: 'aborted', retryable: false, cause: reason });
    expect(transport.requests).toHaveLength(0);
    expect(records).toHaveLength(0);
  });

  it('rejects at once with kind aborted when aborted during a transport call that ignores the signal', async () => {
    const hanging: ChatTransport = { completeChat: () => new Promise(() => {}) };
    const records: CallRecord[] = [];
    const adapter = new ChatAdapter(hanging, {
      observers: [{ afterCall: (record) => records.push(record) }],
    });
    const controller = new AbortController();
    const pending = adapter.complete({ ...request, signal: controller.signal });
    setTimeout(() => controller.abort(), 10);
    await expect(pending).rejects.toMatchObject({ name: 'ChatError', kind: 'aborted' });
    expect(records[0]).toMatchObject({ usage: null, attempts: 1, error: { kind: 'aborted', status: null } });
  });

  it('does not make the JSON retry once the signal is aborted', async () => {
    const controller = new AbortController();
    const transport = new PlainTransport([{ content: '' }, { content: '{}' }]);
    const adapter = new ChatAdapter(transport, {
      observers: [{ afterCall: () => controller.abort() }],
    });
    await expect(
      adapter.complete({ ...request, jsonObject: true, signal: controller.signal }),
    ).rejects.toMatchObject({ kind: 'aborted' });
    expect(transport.requests).toHaveLength(1);
  });

  it('rejects a signal that is not an AbortSignal, naming the field', async () => {
    const adapter = new ChatAdapter(new RawTransport([answer('x')]));
    await expect(adapter.complete({ ...request, signal: {} as AbortSignal })).rejects.toThrow(
      new TypeError('request.signal must be an AbortSignal'),
    );
  });

  it('cancels listModels on a transport that ignores the signal', async () => {
    const transport: ChatTransport = {
      completeChat: async () => ({}),
      listModels: () => new Promise(() => {}),
    };
    const listing = new ChatAdapter(transport).listModels({ signal: AbortSignal.timeout(10) });
    await expect(listing).rejects.toMatchObject({ kind: 'aborted' });
  });
});

describe('ChatAdapter types', () => {
  it('types messages and tools with the openai SDK shapes, so typos fail to compile', () => {
    // @ts-expect-error a misspelt role key is not a message
    const typo: ChatMessage = { rol: 'user', content: 'hi' };
    // @ts-expect-error an unknown role is not a message
    const badRole: ChatMessage = { role: 'usr', content: 'hi' };
    // @ts-expect-error a tool needs type 'function' and a function definition
    const badTool: ToolSchema = { type: 'function', fn: { name: 'grep' } };
    const replay: ChatMessage = {
      role: 'assistant',
      content: null,
      reasoning_content: 'thought',
      reasoning_details: [{ type: 'reasoning.text', text: 'thought' }],
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'grep', arguments: '{}' } }],
    };
    expect([typo, badRole, badTool, replay]).toHaveLength(4);
    expectTypeOf<ChatMessage>().toHaveProperty('role');
    expectTypeOf<ToolSchema['type']>().toEqualTypeOf<'function'>();
  });

  it('types logprobs with the SDK logprob shape and usage entries with the known token fields', async () => {
    const adapter = new ChatAdapter(new RawTransport([answer('x', { prompt_tokens: 3, extra: 'kept' })]));
    const response = await adapter.complete(request);
    expectTypeOf(response.logprobs).toEqualTypeOf<ChatLogprobs | null>();
    expectTypeOf<NonNullable<ChatLogprobs['content']>[number]['logprob']>().toEqualTypeOf<number>();
    expectTypeOf(adapter.usage[0]?.prompt_tokens).toEqualTypeOf<number | undefined>();
    expectTypeOf(adapter.usage[0]?.extra).toEqualTypeOf<unknown>();
    expect(adapter.usage[0]).toEqual({ prompt_tokens: 3, extra: 'kept' });
  });

  it('takes readonly messages and tools, and types finish reasons, reasoning details, tariffs and attempt errors', async () => {
    const messages: readonly ChatMessage[] = Object.freeze([{ role: 'user', content: 'hi' }] as const);
    const tools: readonly ToolSchema[] = [];
    const adapter = new ChatAdapter(new RawTransport([answer('x', { prompt_tokens: 3 })]));
    const response = await adapter.complete({ model: 'primary-flash', messages, tools });
    expect(response.content).toBe('x');

    expectTypeOf<'stop'>().toMatchTypeOf<NonNullable<ChatResponse['finishReason']>>();
    expectTypeOf<'a-provider-reason'>().toMatchTypeOf<NonNullable<ChatResponse['finishReason']>>();
    // A misspelt known reason still compiles as another provider's string, but autocompletion
    // offers the known ones: the union keeps its literal members.
    expectTypeOf<Extract<FinishReason, 'length'>>().toEqualTypeOf<'length'>();
    expectTypeOf<NonNullable<ChatResponse['reasoningDetails']>[number]['signature']>().toEqualTypeOf<
      string | null | undefined
    >();
    expectTypeOf<CallRecord['tariff']>().toEqualTypeOf<TariffRef | null>();
    expectTypeOf<AttemptOutcome['error']>().toEqualTypeOf<ChatError | Error | null>();
    expectTypeOf<CompleteRequest['deadlineSeconds']>().toEqualTypeOf<number | undefined>();
    // @ts-expect-error a record's cost in nano-dollars is a number, not a string
    const wrong: CallRecord['costNanoUsd'] = '47080';
    expect(wrong).toBe('47080');
  });
});
