import { createServer } from 'node:http';
import type { EmulatorOptions } from '@switchboard/emulator';
import { closeTestEmulators } from '@switchboard/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { ChatAdapter, type ChatResponse, type CompleteRequest, toAssistantMessage } from '../../src/index.js';
import { askForTodos, grepTool } from '../support/grep-tool.js';
import { closeLoopbackServers, listenOnLoopback } from '../support/listen-on-loopback.js';
import { pricedAs } from '../support/priced-as.js';
import { adapterOn, collect, textOf } from '../support/streaming.js';
import { WIRE_TRANSPORTS, type WireTransportCase } from '../support/wire-transports.js';

afterEach(closeTestEmulators);
afterEach(closeLoopbackServers);

/** What must match between a streamed and a plain call of the same reply. */
function essence(response: ChatResponse) {
  return {
    content: response.content,
    reasoning: response.reasoning,
    reasoningDetails: response.reasoningDetails,
    toolCalls: response.toolCalls,
    logprobs: response.logprobs,
    meanLogprob: response.meanLogprob,
    finishReason: response.finishReason,
    costUsd: response.costUsd,
    calls: response.calls.map((call) => ({
      usage: call.usage,
      costUsd: call.costUsd,
      priceSource: call.priceSource,
      pricedAs: call.pricedAs,
      finishReason: call.finishReason,
      attempts: call.attempts,
      model: call.model,
    })),
  };
}

/** The same request, plain on one fresh emulator and streamed on another: both answers. */
async function plainAndStreamed(
  wire: WireTransportCase,
  request: CompleteRequest,
  options: EmulatorOptions = {},
  thinking = false,
) {
  const plain = await adapterOn(wire, options, { disableThinking: !thinking });
  const streamed = await adapterOn(wire, options, { disableThinking: !thinking }, { tapped: true });
  const expected = await plain.adapter.complete(request);
  const stream = streamed.adapter.stream(request);
  const deltas = await collect(stream);
  const response = await stream.response;
  const bodies = streamed.tap?.replies.map((reply) => reply.body) ?? [];
  return { expected, response, deltas, emulator: streamed.emulator, adapter: streamed.adapter, bodies };
}

/** `request` continued with the assembled turn and a tool result for its first call. */
function replayTurn(adapter: ChatAdapter, request: CompleteRequest, response: ChatResponse, result: string) {
  return adapter.complete({
    ...request,
    messages: [
      ...request.messages,
      toAssistantMessage(response),
      { role: 'tool', tool_call_id: response.toolCalls[0]?.id ?? '', content: result },
    ],
  });
}

/** The `delta` objects of the data events of an SSE body. */
function deltasOnTheWire(body: string): Record<string, unknown>[] {
  return body
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
    .flatMap(
      (line) => (JSON.parse(line.slice(6)) as { choices: { delta: Record<string, unknown> }[] }).choices,
    )
    .map((choice) => choice.delta);
}

const question = (content: string): CompleteRequest => ({
  model: 'primary-flash',
  messages: [{ role: 'user', content }],
});

describe.each(WIRE_TRANSPORTS)('over $name', (wire) => {
  describe('ChatAdapter.stream against the emulator', () => {
    it('sends stream: true with stream_options.include_usage, beside the plain fields', async () => {
      const { emulator, adapter } = await adapterOn(wire);
      await adapter.stream({ ...question('Is the build green?'), jsonObject: true, maxTokens: 50 }).response;
      const body = emulator.requests[0]?.body as Record<string, unknown>;
      expect(body.stream).toBe(true);
      expect(body.stream_options).toEqual({ include_usage: true });
      expect(body.thinking).toEqual({ type: 'disabled' });
      expect(body.response_format).toEqual({ type: 'json_object' });
      expect(body.max_tokens).toBe(50);
      expect(body.temperature).toBe(0);
    });

    it('yields content deltas in order that join into the response, equal to complete() for the same reply', async () => {
      const { expected, response, deltas } = await plainAndStreamed(
        wire,
        question('Which tests cover the retry loop?'),
      );
      expect(deltas.length).toBeGreaterThan(5);
      expect(deltas.every((delta) => delta.type === 'content')).toBe(true);
      expect(textOf(deltas, 'content')).toBe(response.content);
      expect(essence(response)).toEqual(essence(expected));
      expect(response.calls[0]?.streamed).toBe(true);
      expect(expected.calls[0]?.streamed).toBe(false);
      expect(response.calls[0]?.firstDeltaMs).toBeGreaterThanOrEqual(0);
      expect(response.calls[0]?.firstDeltaMs).toBeLessThanOrEqual(response.calls[0]?.durationMs ?? 0);
    });

    it('streams the primary thinking: reasoning deltas before content, equal to complete()', async () => {
      const { expected, response, deltas } = await plainAndStreamed(
        wire,
        question('Should the cache key include the model?'),
        {},
        true,
      );
      const firstContent = deltas.findIndex((delta) => delta.type === 'content');
      const lastReasoning = deltas.findLastIndex((delta) => delta.type === 'reasoning');
      expect(lastReasoning).toBeGreaterThan(0);
      expect(lastReasoning).toBeLessThan(firstContent);
      expect(textOf(deltas, 'reasoning')).toBe(response.reasoning);
      expect(essence(response)).toEqual(essence(expected));
      expect(response.reasoning).not.toBeNull();
    });

    it('streams the gateway: reasoning and reasoning_details deltas, usage.cost, equal to complete(), replayable', async () => {
      const request: CompleteRequest = {
        ...question('Run grep_repo on the adapter folder'),
        tools: [
          {
            type: 'function',
            function: {
              name: 'grep_repo',
              description: 'Search the repository',
              parameters: {
                type: 'object',
                properties: { pattern: { type: 'string' } },
                required: ['pattern'],
              },
            },
          },
        ],
      };
      const { expected, response, deltas, adapter } = await plainAndStreamed(
        wire,
        request,
        { flavor: 'gateway' },
        true,
      );
      expect(response.reasoningDetails).not.toBeNull();
      expect(response.toolCalls).toHaveLength(1);
      expect(essence(response)).toEqual(essence(expected));
      expect(response.calls[0]?.usage?.cost).toBeGreaterThan(0);
      const fragments = deltas.filter((delta) => delta.type === 'tool_call');
      expect(fragments.length).toBeGreaterThan(2);
      expect(fragments[0]).toMatchObject({ index: 0, name: 'grep_repo' });
      expect(fragments[1]).toMatchObject({ index: 0, id: null, name: null });
      // The assembled turn replays: the gateway checks reasoning_details exactly.
      const next = await replayTurn(adapter, request, response, 'src/chat-adapter.ts');
      expect(next.content).toContain('Tool result from grep_repo');
    });

    it('assembles logprobs across chunks exactly as a plain reply carries them', async () => {
      const { expected, response } = await plainAndStreamed(wire, {
        ...question('Name three risky files.'),
        logprobs: true,
      });
      expect(response.logprobs?.content?.length).toBeGreaterThan(3);
      expect(essence(response)).toEqual(essence(expected));
    });

    describe('a tool-call turn whose deltas carry content: ""', () => {
      const request: CompleteRequest = { model: 'primary-flash', messages: [askForTodos], tools: [grepTool] };

      it.each(['primary', 'gateway'] as const)(
        'the %s flavour: content null streamed and plain, the same toAssistantMessage, and it replays',
        async (flavor) => {
          const { expected, response, adapter, bodies } = await plainAndStreamed(wire, request, { flavor });
          // The stream did carry empty content deltas beside the call (else the case is not tested).
          const onTheWire = deltasOnTheWire(bodies[0] ?? '');
          expect(onTheWire.some((delta) => delta.content === '')).toBe(true);
          expect(response.toolCalls).toHaveLength(1);
          expect(response.content).toBeNull();
          expect(expected.content).toBeNull();
          expect(essence(response)).toEqual(essence(expected));
          expect(toAssistantMessage(response)).toEqual(toAssistantMessage(expected));
          const next = await replayTurn(adapter, request, response, 'src/a.ts: TODO fix');
          expect(next.content).toContain('Tool result from grep_repository');
        },
      );

      it("equals complete() for a provider whose plain reply has content null and whose stream sends content ''", async () => {
        const call = {
          id: 'call_7',
          type: 'function',
          function: { name: 'grep_repository', arguments: '{"pattern":"TODO"}' },
        };
        const usage = { prompt_tokens: 40, completion_tokens: 9, total_tokens: 49 };
        const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
          `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'primary-flash', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
        const server = createServer((incoming, outgoing) => {
          let text = '';
          incoming.on('data', (piece: Buffer) => {
            text += piece.toString();
          });
          incoming.on('end', () => {
            if ((JSON.parse(text) as { stream?: boolean }).stream !== true) {
              outgoing.writeHead(200, { 'content-type': 'application/json' });
              outgoing.end(
                JSON.stringify({
                  id: 'c1',
                  object: 'chat.completion',
                  created: 1,
                  model: 'primary-flash',
                  choices: [
                    {
                      index: 0,
                      message: { role: 'assistant', content: null, tool_calls: [call] },
                      logprobs: null,
                      finish_reason: 'tool_calls',
                    },
                  ],
                  usage,
                }),
              );
              return;
            }
            outgoing.writeHead(200, { 'content-type': 'text/event-stream' });
            outgoing.end(
              chunk({ role: 'assistant', content: '' }) +
                chunk({
                  content: '',
                  tool_calls: [
                    {
                      index: 0,
                      id: call.id,
                      type: 'function',
                      function: { name: 'grep_repository', arguments: '' },
                    },
                  ],
                }) +
                chunk({ content: '', tool_calls: [{ index: 0, function: { arguments: '{"pattern":' } }] }) +
                chunk({ content: '', tool_calls: [{ index: 0, function: { arguments: '"TODO"}' } }] }) +
                chunk({}, 'tool_calls') +
                `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'primary-flash', choices: [], usage })}\n\n` +
                'data: [DONE]\n\n',
            );
          });
        });
        const baseUrl = await listenOnLoopback(server);
        const adapter = new ChatAdapter(wire.make({ apiKey: 'k', baseUrl }), {
          endpoint: pricedAs('primary-flash'),
        });
        const expected = await adapter.complete(request);
        const stream = adapter.stream(request);
        await collect(stream);
        const response = await stream.response;
        expect(expected.content).toBeNull();
        expect(response.content).toBeNull();
        expect(response.toolCalls).toEqual([
          { id: 'call_7', name: 'grep_repository', arguments: { pattern: 'TODO' } },
        ]);
        expect(essence(response)).toEqual(essence(expected));
        expect(toAssistantMessage(response)).toEqual(toAssistantMessage(expected));
      });
    });
  });
});
