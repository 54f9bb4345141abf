import { afterEach, describe, expect, it } from 'vitest';
import { postChat, user } from '../../test/support/test-support.js';
import { type Emulator, startEmulator } from '../server/start-emulator.js';
import { pieces } from './stream-events.js';

let emulator: Emulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

const chat = { model: 'primary-flash', messages: [user('Which step of the nightly build failed?')] };

/** The SSE events of a raw body: comments and parsed data. */
function eventsOf(text: string): ({ comment: string } | { data: unknown })[] {
  return text
    .split('\n\n')
    .filter((block) => block !== '')
    .map((block) =>
      block.startsWith(':')
        ? { comment: block.slice(1) }
        : { data: block.slice(6) === '[DONE]' ? '[DONE]' : JSON.parse(block.slice(6)) },
    );
}

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON paths.
type Chunk = any;

/** Joins the chunks of a stream the way a client assembles them (reasoning_details by index). */
function assemble(chunks: Chunk[]) {
  const message: Chunk = { content: '' };
  const details = new Map<number, Chunk>();
  const calls: Chunk[] = [];
  let usage: unknown = null;
  let finish: unknown = null;
  for (const chunk of chunks) {
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices[0];
    if (choice === undefined) continue;
    const delta = choice.delta;
    for (const field of ['content', 'reasoning_content', 'reasoning']) {
      if (typeof delta[field] === 'string') message[field] = (message[field] ?? '') + delta[field];
    }
    for (const piece of delta.reasoning_details ?? []) {
      const entry = details.get(piece.index);
      if (entry === undefined) details.set(piece.index, { ...piece });
      else {
        for (const [key, value] of Object.entries(piece)) {
          entry[key] = key === 'text' ? entry.text + value : value;
        }
      }
    }
    for (const fragment of delta.tool_calls ?? []) {
      calls[fragment.index] ??= {
        id: fragment.id,
        type: fragment.type,
        function: { name: '', arguments: '' },
      };
      const call = calls[fragment.index];
      call.function.name += fragment.function.name ?? '';
      call.function.arguments += fragment.function.arguments ?? '';
    }
    if (choice.finish_reason) finish = choice.finish_reason;
  }
  if (details.size > 0) message.reasoning_details = [...details.values()];
  if (calls.length > 0) message.tool_calls = calls;
  return { message, usage, finish };
}

async function both(options: Parameters<typeof startEmulator>[0], body: Record<string, unknown>) {
  const plainEmulator = await startEmulator(options);
  const plain = await postChat(plainEmulator.url, body);
  await plainEmulator.close();
  emulator = await startEmulator(options);
  const streamed = await postChat(emulator.url, {
    ...body,
    stream: true,
    stream_options: { include_usage: true },
  });
  return { plain: plain.json, streamed };
}

describe('streamed replies', () => {
  it('pieces join back into the text, one token each', () => {
    expect(pieces(' Hello, world.  ')).toEqual([' Hello', ',', ' world', '.  ']);
    expect(pieces('   ')).toEqual(['   ']);
    expect(pieces('')).toEqual([]);
  });

  it('streams the primary thinking: keep-alives, reasoning before content, a usage chunk, [DONE]; equal to the plain reply', async () => {
    const { plain, streamed } = await both({}, chat);
    expect(streamed.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = eventsOf(streamed.text);
    expect(events.slice(0, 2)).toEqual([{ comment: ' keep-alive' }, { comment: ' keep-alive' }]);
    expect(events.at(-1)).toEqual({ data: '[DONE]' });
    const chunks = events.slice(2, -1).map((event) => (event as { data: Chunk }).data);
    const firstContent = chunks.findIndex((chunk) => chunk.choices[0]?.delta.content);
    const lastReasoning = chunks.findLastIndex((chunk) => chunk.choices[0]?.delta.reasoning_content);
    expect(lastReasoning).toBeLessThan(firstContent);
    expect(chunks.at(-1).choices).toEqual([]);
    const { message, usage, finish } = assemble(chunks);
    expect(message).toEqual({
      content: plain.choices[0].message.content,
      reasoning_content: plain.choices[0].message.reasoning_content,
    });
    expect(usage).toEqual(plain.usage);
    expect(finish).toBe('stop');
    expect(
      chunks.every((chunk) => chunk.object === 'chat.completion.chunk' && chunk.id === chunks[0].id),
    ).toBe(true);
  });

  it('streams the gateway: reasoning and reasoning_details pieces, split tool-call arguments, usage.cost', async () => {
    const tools = [
      {
        type: 'function',
        function: {
          name: 'grep_repo',
          parameters: { type: 'object', properties: { pattern: { type: 'string' } }, required: ['pattern'] },
        },
      },
    ];
    const body = {
      model: 'primary-flash',
      temperature: 0,
      tools,
      messages: [user('Use grep_repo to find the query')],
    };
    const { plain, streamed } = await both({ flavor: 'gateway' }, body);
    const events = eventsOf(streamed.text);
    expect(events.some((event) => 'comment' in event)).toBe(false);
    const chunks = events.slice(0, -1).map((event) => (event as { data: Chunk }).data);
    const { message, usage } = assemble(chunks);
    const expected = plain.choices[0].message;
    expect(message.reasoning).toBe(expected.reasoning);
    expect(message.reasoning_details).toEqual(expected.reasoning_details);
    expect(message.tool_calls).toEqual(expected.tool_calls);
    expect(chunks.filter((chunk) => chunk.choices[0]?.delta.tool_calls).length).toBeGreaterThan(2);
    expect((usage as { cost: number }).cost).toBe(plain.usage.cost);
  });

  it('leaves the usage chunk out without include_usage, and refuses bad stream fields', async () => {
    emulator = await startEmulator();
    const reply = await postChat(emulator.url, { ...chat, stream: true });
    const events = eventsOf(reply.text);
    expect(events.filter((event) => 'data' in event && (event.data as Chunk).usage)).toEqual([]);
    const bad = await postChat(emulator.url, { ...chat, stream: 1 });
    expect(bad.status).toBe(400);
    expect(bad.json.error.param).toBe('stream');
  });

  it('breaks streams as the fault rule says', async () => {
    emulator = await startEmulator({
      faults: [{ stream: { malformedAt: 2, errorAt: 4, errorCode: 429, keepAlives: 1 } }],
    });
    const reply = await postChat(emulator.url, { ...chat, stream: true, thinking: { type: 'disabled' } });
    const blocks = reply.text.split('\n\n').filter((block) => block !== '');
    expect(blocks[0]).toBe(': keep-alive');
    expect(() => JSON.parse((blocks[2] ?? '').slice(6))).toThrow();
    expect(JSON.parse((blocks[4] ?? '').slice(6))).toMatchObject({ error: { code: 429 } });
    expect(blocks).toHaveLength(5);
    expect(() => emulator?.setFaults([{ stream: { cutAfterEvents: -1 } }])).toThrow(/stream.cutAfterEvents/);
    expect(() => emulator?.setFaults([{ stream: { leadingWhitespace: 'x' } }])).toThrow(/leadingWhitespace/);
    expect(() => emulator?.setFaults([{ stream: { sometimes: true } as never }])).toThrow(
      /unknown field 'sometimes'/,
    );
  });
});
