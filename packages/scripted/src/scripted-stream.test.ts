import { type ChatDelta, ChatError, type CompleteRequest } from '@switchboard/adapter';
import { describe, expect, it } from 'vitest';
import { ScriptedChatClient } from './scripted-chat-client.js';

const request: CompleteRequest = { model: 'primary-flash', messages: [{ role: 'user', content: 'go' }] };

async function collect(stream: AsyncIterable<ChatDelta>): Promise<ChatDelta[]> {
  const deltas: ChatDelta[] = [];
  for await (const delta of stream) deltas.push(delta);
  return deltas;
}

const turn = {
  reasoning: 'Look at the diff first.',
  content: 'Two findings,  both minor. ',
  toolCalls: [{ id: 'call_1', name: 'grep_repository', arguments: { pattern: 'exec(', path: 'src/' } }],
  finishReason: 'tool_calls',
};

describe('ScriptedChatClient.stream', () => {
  it('streams a turn in deterministic deltas that join back into it, then resolves to it', async () => {
    const client = new ScriptedChatClient([turn]);
    const stream = client.stream(request);
    const deltas = await collect(stream);
    const response = await stream.response;
    expect(response).toEqual(await new ScriptedChatClient([turn]).complete(request));
    expect(deltas.slice(0, 5)).toEqual([
      { type: 'reasoning', text: 'Look' },
      { type: 'reasoning', text: ' at' },
      { type: 'reasoning', text: ' the' },
      { type: 'reasoning', text: ' diff' },
      { type: 'reasoning', text: ' first.' },
    ]);
    const content = deltas.filter((delta) => delta.type === 'content');
    expect(content.map((delta) => (delta.type === 'content' ? delta.text : '')).join('')).toBe(turn.content);
    expect(content.at(-1)).toEqual({ type: 'content', text: ' minor. ' });
    const fragments = deltas.filter((delta) => delta.type === 'tool_call');
    expect(fragments[0]).toEqual({
      type: 'tool_call',
      index: 0,
      id: 'call_1',
      name: 'grep_repository',
      argumentsText: '',
    });
    expect(fragments.slice(1).every((delta) => delta.type === 'tool_call' && delta.id === null)).toBe(true);
    const text = fragments.map((delta) => (delta.type === 'tool_call' ? delta.argumentsText : '')).join('');
    expect(JSON.parse(text)).toEqual(turn.toolCalls[0]?.arguments);
    expect(fragments.length).toBeGreaterThan(2);
    expect(client.calls).toEqual([request]);
  });

  it('gives the same deltas every time, and the next turn on the next call', async () => {
    const client = new ScriptedChatClient([turn, { content: 'second' }], { cycle: true });
    const first = await collect(client.stream(request));
    expect(await collect(client.stream(request))).toEqual([{ type: 'content', text: 'second' }]);
    expect(await collect(client.stream(request))).toEqual(first);
  });

  it('resolves response without iterating', async () => {
    const client = new ScriptedChatClient([{ content: 'only' }]);
    expect((await client.stream(request).response).content).toBe('only');
  });

  it('rejects response with kind aborted on abort(), a signal, or leaving the loop early', async () => {
    const client = new ScriptedChatClient([turn], { cycle: true });
    const stream = client.stream(request);
    for await (const _delta of stream) break;
    await expect(stream.response).rejects.toMatchObject({ kind: 'aborted', retryable: false });
    expect(ChatError.isInstance(await stream.response.catch((error: unknown) => error))).toBe(true);

    const controller = new AbortController();
    const signalled = client.stream({ ...request, signal: controller.signal });
    controller.abort();
    await expect(signalled.response).rejects.toMatchObject({ kind: 'aborted' });

    const aborted = client.stream(request);
    const seen: ChatDelta[] = [];
    await expect(
      (async () => {
        for await (const delta of aborted) {
          seen.push(delta);
          aborted.abort();
        }
      })(),
    ).rejects.toMatchObject({ kind: 'aborted' });
    expect(seen).toHaveLength(1);
    await expect(aborted.response).rejects.toMatchObject({ kind: 'aborted' });
  });
});
