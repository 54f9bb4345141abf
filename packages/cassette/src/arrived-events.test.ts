import { describe, expect, it } from 'vitest';
import { ArrivedEvents } from './arrived-events.js';
import { usageOfEvents } from './call-pricing.js';
import { expandCompactReply } from './compact-events.js';
import { CASSETTE_LIMITS } from './read-cassette.js';

// A matched chunk's data is not held while its stream goes on: it is its template's bytes around its
// text. Whatever asks for the events (a line to scrub, a replay's state, the usage) gets them whole,
// byte for byte, and the compact line expands to the same events.
const chunk = (content: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    id: 'chatcmpl-1',
    model: 'primary-flash',
    choices: [{ index: 0, delta: { content }, finish_reason: null }],
    ...extra,
  });

function taken(datas: readonly string[]): ArrivedEvents {
  const arrived = new ArrivedEvents();
  datas.forEach((data, index) => {
    arrived.take(index % 3, { data });
  });
  return arrived;
}

/** The events a compact line of `arrived` reads back as. */
function readBack(arrived: ArrivedEvents): unknown {
  const line = arrived.lineEvents();
  const parsed = JSON.parse(JSON.stringify({ reply: { templates: line?.templates, events: line?.events } }));
  const value = expandCompactReply(parsed, CASSETTE_LIMITS, (field, expected) => {
    throw new Error(`${field} must be ${expected}`);
  }) as { reply: { events: unknown } };
  return value.reply.events;
}

describe('events taken as they arrive', () => {
  it.each([
    ['plain texts', ['one', ' two', ' three', ' four']],
    ['texts beyond ASCII', ['é', ' 漢字', ' 😀', ' ok']],
    ['a lone surrogate', ['a', '\uD800', 'b', 'c']],
    ['a usage in every chunk', ['a', 'b', 'c', 'd']],
  ])('gives back %s whole, and the line reads back as them', (name, texts) => {
    const extra =
      name === 'a usage in every chunk' ? { usage: { prompt_tokens: 1, completion_tokens: 2 } } : {};
    const datas = [...texts.map((text) => chunk(text, extra)), '[DONE]'];
    const arrived = taken(datas);
    const expected = datas.map((data, index) => ({ ms: index % 3, data }));
    expect(arrived.lineEvents()).not.toBeNull();
    expect(arrived.recorded).toEqual(expected);
    expect(arrived.unchanged()).toEqual(expected);
    expect(arrived.usage()).toEqual(usageOfEvents(expected));
    expect(readBack(arrived)).toEqual(expected);
  });

  it('holds the data of a chunk that is not kept as it came (a key given twice)', () => {
    const twice = (content: string) =>
      `{"id":"chatcmpl-1","id":"chatcmpl-2","choices":[{"index":0,"delta":{"content":"${content}"}}]}`;
    const datas = ['a', 'b', 'c'].map(twice);
    const arrived = taken(datas);
    expect(arrived.recorded.map((event) => (event as { data: string }).data)).toEqual(datas);
    // Written back as standard JSON (the repeated key gone), never compactly.
    expect(arrived.lineEvents()).toBeNull();
    expect(arrived.unchanged().map((event) => (event as { data: string }).data)).toEqual(
      datas.map((data) => JSON.stringify(JSON.parse(data))),
    );
  });
});
