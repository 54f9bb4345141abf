import type { RecordedStream, RecordedStreamEvent } from './cassette-entry.js';

/**
 * A long stream's line, written compactly (cassette version 2): most of a
 * stream is one chunk repeated with another content text (see `ChunkTemplate`),
 * so the line keeps that chunk's bytes around its text once, in
 * `reply.templates` (`[before, after]`), and each such event as
 * `{"ms":…,"t":…,"text":…}`: its data is `before`, the text as a JSON string,
 * then `after`, byte for byte as it came. A 100,000-event stream's line is about
 * a seventh of its events written out. A reader expands the events back
 * (`expandCompactReply`) before anything else looks at the line, so the check,
 * replay and the secret scan see the events as they came.
 */
export interface LineEvents {
  readonly templates: ReadonlyArray<readonly [string, string]>;
  readonly events: readonly unknown[];
}

/** The line form of a stream reply, told by the recorder that made it (keyed by the reply object). */
const LINE_EVENTS = new WeakMap<object, LineEvents>();

/** Says that `reply` is written with `events` in its line (`reply.events` being their expansion). */
export function writeCompactly(reply: object, events: LineEvents): void {
  LINE_EVENTS.set(reply, events);
}

/** The reply as its line holds it: compact when the recorder said so, else as it is. */
export function lineReply<T>(reply: T): T | Record<string, unknown> {
  const compact = typeof reply === 'object' && reply !== null ? LINE_EVENTS.get(reply) : undefined;
  if (compact === undefined) return reply;
  const stream = reply as unknown as RecordedStream;
  return {
    status: stream.status,
    headers: stream.headers,
    templates: compact.templates,
    events: compact.events,
    end: stream.end,
  };
}

/** How many templates a line may name (a recorder learns at most a few per stream). */
const MAX_TEMPLATES = 16;

/** What a line's expansion may grow to: the caps of a recorded stream. */
export interface ExpansionCaps {
  readonly eventBytes: number;
  readonly streamBytes: number;
}

type Fail = (field: string, expected: string) => never;

/**
 * `value` (a parsed line) with its compact stream events expanded (`reply.templates`
 * gone, each `{ms, t, text}` event its `{ms, data}`), or `value` itself when it has
 * none. Each expanded event is held to `caps.eventBytes` and all of them to
 * `caps.streamBytes` as they are made, so a line cannot grow past what a live
 * stream could have held.
 */
export function expandCompactReply(value: unknown, caps: ExpansionCaps, fail: Fail): unknown {
  if (!isObject(value) || !isObject(value.reply) || !('templates' in value.reply)) return value;
  const { templates, ...reply } = value.reply;
  if (!Array.isArray(templates) || templates.length === 0 || templates.length > MAX_TEMPLATES) {
    return fail('reply.templates', `a list of 1 to ${MAX_TEMPLATES} [before, after] pairs of strings`);
  }
  const pairs = templates.map((pair: unknown, index) => {
    if (!Array.isArray(pair) || pair.length !== 2 || !pair.every((piece) => typeof piece === 'string')) {
      return fail(`reply.templates[${index}]`, 'a [before, after] pair of strings');
    }
    return pair as [string, string];
  });
  if (!Array.isArray(reply.events)) return fail('reply.events', 'an array');
  let bytes = 0;
  const events = (reply.events as unknown[]).map((event, index) => {
    if (!isObject(event) || !('t' in event)) {
      bytes += isObject(event) && typeof event.data === 'string' ? event.data.length : 0;
      return event;
    }
    const pair = Number.isInteger(event.t) ? pairs[event.t as number] : undefined;
    const text = event.text;
    if (
      pair === undefined ||
      typeof text !== 'string' ||
      !verbatim(text) ||
      Object.keys(event).length !== 3
    ) {
      return fail(
        `reply.events[${index}]`,
        'a compact event {ms, t, text}: t a template of reply.templates, text without quotes, backslashes or control characters',
      );
    }
    const length = pair[0].length + text.length + 2 + pair[1].length;
    if (length > caps.eventBytes) {
      return fail(`reply.events[${index}]`, `at most ${caps.eventBytes} bytes (a live event's cap)`);
    }
    bytes += length;
    if (bytes > caps.streamBytes) {
      return fail('reply.events', `at most ${caps.streamBytes} bytes in all (a live reply's cap)`);
    }
    const expanded: RecordedStreamEvent = { ms: event.ms as number, data: `${pair[0]}"${text}"${pair[1]}` };
    return expanded;
  });
  return { ...value, reply: { ...reply, events } };
}

/** Text a JSON string holds as it is: no quote, backslash or control character. */
function verbatim(text: string): boolean {
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 32 || code === 34 || code === 92) return false;
  }
  return true;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
