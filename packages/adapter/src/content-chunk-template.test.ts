import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatDelta } from './chat-stream.js';
import { ContentChunkTemplate } from './content-chunk-template.js';
import { StreamAssembly } from './stream-assembly.js';

/** What an assembly made of `events`: the deltas, the message and the reply's fields, or the error it threw. */
function assemble(events: readonly string[], parseEveryEvent: boolean) {
  const assembly = new StreamAssembly('primary-flash', { parseEveryEvent });
  const deltas: ChatDelta[] = [];
  try {
    for (const data of events) assembly.accept(data, undefined, deltas);
  } catch (error) {
    return { error: String(error), deltas };
  }
  return {
    deltas,
    message: assembly.message(),
    id: assembly.responseId,
    model: assembly.responseModel,
    usage: assembly.finalUsage,
    outputBytes: assembly.outputBytes,
    pieces: assembly.pieces,
  };
}

const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'primary-flash',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: null }],
    ...extra,
  });

describe('ContentChunkTemplate', () => {
  it('matches a chunk that differs from the learned one only in its content text', () => {
    const template = new ContentChunkTemplate();
    const first = chunk({ content: 'Hello' });
    template.learn(first, JSON.parse(first));
    expect(template.match(chunk({ content: ' world, ünïcode 😀' }))).toBe(' world, ünïcode 😀');
    expect(template.model).toBe('primary-flash');
  });

  it.each([
    ['a text with a quote', chunk({ content: 'say "hi"' })],
    ['a text with a backslash', chunk({ content: 'a\\b' })],
    ['a text with a newline', chunk({ content: 'a\nb' })],
    ['an empty text', chunk({ content: '' })],
    ['another model', chunk({ content: 'x' }).replace('primary-flash', 'primary-pro')],
    ['a finish reason', chunk({ content: 'x' }).replace('"finish_reason":null', '"finish_reason":"stop"')],
    ['usage', chunk({ content: 'x' }, { usage: { prompt_tokens: 1 } })],
    ['a tool call', chunk({ content: 'x', tool_calls: [{ index: 0 }] })],
    ['two strings where the text was', chunk({ content: 'x' }).replace('"x"', '"x","y"')],
    ['a string that closes early', chunk({ content: 'x' }).replace('"x"', '"x"}],"z":"')],
  ])('does not match %s', (_, data) => {
    const template = new ContentChunkTemplate();
    const first = chunk({ content: 'Hello' });
    template.learn(first, JSON.parse(first));
    expect(template.match(data)).toBeNull();
  });

  it('cuts at the content, not at the same text standing in the id or the model', () => {
    const template = new ContentChunkTemplate();
    const first = JSON.stringify({
      id: 'primary',
      model: 'primary',
      choices: [{ index: 0, delta: { content: 'primary' }, finish_reason: null }],
      note: 'primary',
    });
    template.learn(first, JSON.parse(first));
    const next = first.replace('"content":"primary"', '"content":"next"');
    expect(template.match(next)).toBe('next');
    expect(template.match(first.replace('"id":"primary"', '"id":"other"'))).toBeNull();
  });

  it('cuts at the content key JSON.parse keeps when it stands twice (the last)', () => {
    const template = new ContentChunkTemplate();
    const data = '{"id":"a","choices":[{"delta":{"content":"x","content":"y"}}]}';
    template.learn(data, JSON.parse(data));
    expect(template.match('{"id":"a","choices":[{"delta":{"content":"x","content":"z"}}]}')).toBe('z');
    expect(template.match('{"id":"a","choices":[{"delta":{"content":"q","content":"y"}}]}')).toBeNull();
  });

  it('stops learning after four tries in one stream', () => {
    const template = new ContentChunkTemplate();
    for (let index = 0; index < 5; index += 1) {
      const data = chunk({ content: 'x' }, { obfuscation: `pad${index}` });
      template.learn(data, JSON.parse(data));
    }
    expect(template.match(chunk({ content: 'y' }, { obfuscation: 'pad3' }))).toBe('y');
    expect(template.match(chunk({ content: 'y' }, { obfuscation: 'pad4' }))).toBeNull();
  });
});

describe('StreamAssembly with the template', () => {
  it('assembles what parsing every event assembles, for a plain reply', () => {
    const events = [
      chunk({ role: 'assistant', content: '' }),
      ...['Two', ' findings', ', "quoted"', ' and\\', ' ünï', ' done'].map((text) =>
        chunk({ content: text }),
      ),
      chunk({}).replace('"finish_reason":null', '"finish_reason":"stop"'),
      JSON.stringify({ id: 'chatcmpl-1', model: 'primary-flash', choices: [], usage: { prompt_tokens: 3 } }),
      '[DONE]',
    ];
    const fast = assemble(events, false);
    expect(fast).toEqual(assemble(events, true));
    expect(fast.message).toMatchObject({
      content: 'Two findings, "quoted" and\\ ünï done',
      finish_reason: 'stop',
    });
  });

  it('takes the model back from a matching chunk after another model came between', () => {
    const events = [
      chunk({ content: 'a' }),
      chunk({ content: 'b' }).replace('primary-flash', 'primary-pro'),
      chunk({ content: 'c' }),
    ];
    expect(assemble(events, false)).toEqual(assemble(events, true));
    expect(assemble(events, false).model).toBe('primary-flash');
  });

  // Streams made of a few chunk shapes and texts, with any JSON text between: whatever comes, the
  // assembly with the template gives exactly what parsing every event gives (or the same error).
  it('equals parsing every event, for random streams', () => {
    const text = fc.oneof(
      fc.constantFrom('', 'a', ' b', '"', '\\', 'primary-flash', 'chatcmpl-1', '\n', 'content', '😀'),
      fc.string({ maxLength: 6 }),
    );
    const event = fc.oneof(
      { weight: 6, arbitrary: text.map((content) => chunk({ content })) },
      {
        weight: 1,
        arbitrary: text.map((content) => chunk({ content }).replace('primary-flash', 'primary-pro')),
      },
      {
        weight: 1,
        arbitrary: text.map((content) => chunk({ content }, { usage: { completion_tokens: 2 } })),
      },
      { weight: 1, arbitrary: text.map((content) => chunk({ content, reasoning_content: content })) },
      {
        weight: 1,
        arbitrary: text.map((content) =>
          chunk({ content }).replace('"finish_reason":null', '"finish_reason":"stop"'),
        ),
      },
      {
        weight: 1,
        arbitrary: fc
          .tuple(text, text)
          .map(([a, b]) => chunk({ content: a }).replace(`"${a}"`, `"${a}","content":"${b}"`)),
      },
      {
        weight: 1,
        arbitrary: fc
          .tuple(text, fc.string({ maxLength: 8 }))
          .map(([a, b]) => chunk({ content: a }).replace(`"${a}"`, b)),
      },
    );
    fc.assert(
      fc.property(fc.array(event, { maxLength: 12 }), (events) => {
        expect(assemble(events, false)).toEqual(assemble(events, true));
      }),
      { numRuns: 3_000 },
    );
  });
});
