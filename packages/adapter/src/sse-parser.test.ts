import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TransportStreamEvent } from './chat-transport.js';
import { EventTooLargeError, SseParser } from './sse-parser.js';

const encode = (text: string): Uint8Array => new TextEncoder().encode(text);

/** Parses `text` fed in the given pieces (byte offsets), then ended. */
function parse(text: string, cuts: readonly number[] = [], max = 1 << 20): TransportStreamEvent[] {
  const parser = new SseParser(max);
  const bytes = encode(text);
  const events: TransportStreamEvent[] = [];
  let start = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    events.push(...parser.push(bytes.subarray(start, cut)));
    start = cut;
  }
  events.push(...parser.push(bytes.subarray(start)));
  events.push(...parser.end());
  return events;
}

describe('SseParser', () => {
  it('reads data events, comments and [DONE]', () => {
    expect(parse(': keep-alive\n\ndata: {"a":1}\n\ndata: [DONE]\n\n')).toEqual([
      { comment: ' keep-alive' },
      { data: '{"a":1}' },
      { data: '[DONE]' },
    ]);
  });

  it('joins the data lines of one event with \\n, keeps event names, drops one space after the colon', () => {
    expect(parse('event: error\ndata:first\ndata:  second\nid: 7\nretry: 10\n\n')).toEqual([
      { data: 'first\n second', event: 'error' },
    ]);
  });

  it('accepts \\r\\n and \\r line ends, a leading BOM, and a last event without its blank line', () => {
    expect(parse('\uFEFFdata: a\r\n\r\ndata: b\r\rdata: c')).toEqual([
      { data: 'a' },
      { data: 'b' },
      { data: 'c' },
    ]);
  });

  it('drops an event with no data line, and a field without a colon counts as empty', () => {
    expect(parse('event: ping\n\ndata\n\n')).toEqual([{ data: '' }]);
  });

  it('gives the same events however the bytes are split, multi-byte characters and CRLF included', () => {
    const text =
      ': keep-alive\r\n\r\ndata: {"content":"héllo wörld 🚀"}\r\n\r\ndata: x\rdata: y\r\r\ndata: [DONE]\n\n';
    const whole = parse(text);
    const length = encode(text).length;
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: length - 1 }), { maxLength: 12 }), (cuts) => {
        expect(parse(text, cuts)).toEqual(whole);
      }),
    );
    expect(whole).toEqual([
      { comment: ' keep-alive' },
      { data: '{"content":"héllo wörld 🚀"}' },
      { data: 'x\ny' },
      { data: '[DONE]' },
    ]);
  });

  it('throws once one event passes its cap, also while its line is still arriving', () => {
    expect(() => parse(`data: ${'x'.repeat(100)}\n\n`, [], 64)).toThrow(EventTooLargeError);
    expect(() => parse(`data: ${'x'.repeat(30)}\ndata: ${'y'.repeat(40)}\n\n`, [], 64)).toThrow(
      /64-byte cap/,
    );
    const parser = new SseParser(64);
    expect(() => parser.push(encode(`data: ${'z'.repeat(80)}`))).toThrow(EventTooLargeError);
    // Many small events never add up: the cap is per event.
    expect(parse('data: 0123456789\n\n'.repeat(100), [], 64)).toHaveLength(100);
  });
});
