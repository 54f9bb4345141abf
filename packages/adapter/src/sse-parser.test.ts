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

/**
 * Parses `bytes` cut at `cuts`, each push and `more()` asking for the next of `limits` events (in turn),
 * some of what is left taken at once and the rest with the next push, as `drains` says; then ends. Checks
 * that no call gave more than it was asked for and that nothing is left; returns the events.
 */
function parseInTurns(
  bytes: Uint8Array,
  cuts: readonly number[],
  limits: readonly number[],
  drains: readonly boolean[],
): TransportStreamEvent[] {
  const parser = new SseParser(1 << 20);
  const events: TransportStreamEvent[] = [];
  let start = 0;
  let turn = 0;
  const limit = () => limits[turn % limits.length] as number;
  for (const cut of [...cuts.map((at) => Math.min(at, bytes.length)).sort((a, b) => a - b), bytes.length]) {
    events.push(...parser.push(bytes.subarray(start, cut), limit()));
    start = cut;
    // Some of what is left is taken now, the rest with the next push (which parses it first).
    while (parser.hasMore && (drains[turn++ % drains.length] ?? true)) {
      const asked = limit();
      const more = parser.more(asked);
      expect(more.length).toBeLessThanOrEqual(asked);
      events.push(...more);
    }
  }
  events.push(...parser.end());
  expect(parser.hasMore).toBe(false);
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

  it('gives the same events when each push or more() stops after a few, the rest left for later', () => {
    const text =
      ': keep-alive\r\n\r\ndata: {"content":"héllo wörld 🚀"}\r\n\r\ndata: x\rdata: y\r\r\ndata: a\n\ndata:b\n\nevent: e\ndata: c\n\ndata: [DONE]\n\n';
    const whole = parse(text);
    const bytes = encode(text);
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 8 }),
        fc.integer({ min: 1, max: 3 }),
        fc.array(fc.boolean(), { minLength: 16, maxLength: 16 }),
        (cuts, limit, drains) => {
          const events = parseInTurns(bytes, cuts, [limit], drains);
          expect(events).toEqual(whole);
        },
      ),
    );
    const parser = new SseParser(1 << 20);
    expect(parser.push(encode('data: 1\n\ndata: 2\n\ndata: 3\n\n'), 1)).toEqual([{ data: '1' }]);
    expect(parser.hasMore).toBe(true);
    expect(parser.more(1)).toEqual([{ data: '2' }]);
    expect(parser.more()).toEqual([{ data: '3' }]);
    expect(parser.hasMore).toBe(false);
    expect(parser.more()).toEqual([]);
  });

  it('gives the same events when long reads are decoded a piece at a time, whatever is asked for and when', () => {
    // Reads of up to ~16 KiB: the parser decodes those of which only the first events are asked for
    // in growing pieces (1 KiB first), so multi-byte characters and line ends fall across pieces too.
    const line = fc.oneof(
      fc
        .string({ unit: 'grapheme', maxLength: 120, size: 'max' })
        .map((text) => `data: ${text.replace(/[\r\n]/g, ' ')}`),
      fc.constantFrom(': keep-alive', 'event: error', 'id: 7', 'data', ''),
    );
    const ending = fc.constantFrom('\n', '\r\n', '\r');
    const body = fc
      .array(fc.tuple(line, ending), { maxLength: 160 })
      .map((lines) => lines.map(([text, end]) => text + end).join(''));
    fc.assert(
      fc.property(
        body,
        fc.array(fc.integer({ min: 0, max: 1 << 15 }), { maxLength: 4 }),
        fc.array(fc.constantFrom(1, 2, 5, Number.POSITIVE_INFINITY), { minLength: 1, maxLength: 8 }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
        (text, cuts, limits, drains) => {
          const whole = parse(text);
          const events = parseInTurns(encode(text), cuts, limits, drains);
          expect(events).toEqual(whole);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("decodes as a streaming TextDecoder('utf-8') would, BOMs, broken and split characters included", () => {
    const pieces = [
      [0xef, 0xbb, 0xbf],
      [...encode('data: ')],
      [...encode('data:é')],
      [...encode(': c')],
      [0x0a],
      [0x0d],
      [0x0a, 0x0a],
      [0x61],
      [0xc3, 0xa9],
      [0xf0, 0x9f, 0x9a, 0x80],
      [0xe2, 0x82],
      [0xff],
      [0x80],
      [0xc3],
      [0xed, 0xa0, 0x80],
    ];
    // The reference: the whole body decoded by TextDecoder, BOMs kept, then parsed as UTF-8 text.
    const reference = new TextDecoder('utf-8', { ignoreBOM: true });
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: pieces.length - 1 }), { maxLength: 40 }),
        fc.uniqueArray(fc.integer({ min: 1, max: 200 }), { maxLength: 10 }),
        (picks, cuts) => {
          const bytes = Uint8Array.from(picks.flatMap((pick) => pieces[pick] ?? []));
          const text = reference.decode(bytes);
          const within = cuts.filter((cut) => cut < bytes.length);
          const bytesParsed = new SseParser(1 << 20);
          const events: TransportStreamEvent[] = [];
          let start = 0;
          for (const cut of within.sort((a, b) => a - b)) {
            events.push(...bytesParsed.push(bytes.subarray(start, cut)));
            start = cut;
          }
          events.push(...bytesParsed.push(bytes.subarray(start)), ...bytesParsed.end());
          // The same text as valid UTF-8, in one piece: its BOMs dropped as the bytes' were.
          const textParsed = new SseParser(1 << 20);
          expect(events).toEqual([...textParsed.push(encode(text)), ...textParsed.end()]);
        },
      ),
      { numRuns: 2000 },
    );
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
