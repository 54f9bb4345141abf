import type { RecordedStream } from './cassette-entry.js';

/**
 * A long stream's line, written compactly (cassette version 2): most of a
 * stream is one chunk repeated with another content text (see `ChunkTemplate`),
 * so the line keeps that chunk's bytes around its text once, in
 * `reply.templates` (`[before, after]`), and each run of such events in a row as
 * one element of `reply.events`, `{"t":…,"ms":[…],"text":[…]}`: event `i` of the
 * run waited `ms[i]` and its data is `before`, `text[i]` as a JSON string, then
 * `after`, byte for byte as it came. A 100,000-event stream's line is about a
 * fifteenth of its events written out. A reader expands the events back
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

/**
 * One list of a compact run (its delays or its texts): values added one by one,
 * and stretches of them already written as JSON (see `TextStretch`), so a long
 * stream's line is not made of 100,000 values again. `toJSON` gives them as a
 * list (what any `JSON.stringify` writes); `json` writes that list from the
 * parts as they are.
 */
export class RunList<T> {
  readonly #parts: Array<
    { readonly value: T } | { readonly json: string; readonly values: () => readonly T[] }
  > = [];

  /** One value. */
  push(value: T): void {
    this.#parts.push({ value });
  }

  /** Values already written as JSON, comma-separated (`"a","b"`, `0,12`), and how to have them one by one. */
  pushWritten(json: string, values: () => readonly T[]): void {
    this.#parts.push({ json, values });
  }

  /** The values as a JSON list. */
  json(): string {
    return `[${this.#parts.map((part) => ('json' in part ? part.json : JSON.stringify(part.value))).join(',')}]`;
  }

  toJSON(): T[] {
    const values: T[] = [];
    for (const part of this.#parts) {
      if ('value' in part) values.push(part.value);
      else for (const value of part.values()) values.push(value);
    }
    return values;
  }
}

/** A JSON member `"key":value`, or '' when the value is not written (undefined), as `JSON.stringify` leaves it out. */
export function jsonMember(key: string, value: unknown): string {
  const json = JSON.stringify(value);
  return json === undefined ? '' : `${JSON.stringify(key)}:${json}`;
}

/** A JSON object of members made by {@link jsonMember} (empty ones left out). */
export function jsonObject(members: readonly string[]): string {
  return `{${members.filter((member) => member !== '').join(',')}}`;
}

/**
 * The reply as its line holds it, as JSON: compact when the recorder said so
 * (written as `JSON.stringify` would write `{status, headers, templates, events,
 * end}`, each run's lists from their parts, see `RunList`), else as it is.
 */
export function lineReplyJson(reply: unknown): string {
  const compact = typeof reply === 'object' && reply !== null ? LINE_EVENTS.get(reply) : undefined;
  if (compact === undefined) return JSON.stringify(reply);
  const stream = reply as unknown as RecordedStream;
  const events = compact.events.map((event) =>
    isObject(event) && event.ms instanceof RunList && event.text instanceof RunList
      ? jsonObject([jsonMember('t', event.t), `"ms":${event.ms.json()}`, `"text":${event.text.json()}`])
      : JSON.stringify(event),
  );
  return jsonObject([
    jsonMember('status', stream.status),
    jsonMember('headers', stream.headers),
    jsonMember('templates', compact.templates),
    `"events":[${events.join(',')}]`,
    jsonMember('end', stream.end),
  ]);
}

/** How many templates a line may name (a recorder learns at most a few per stream). */
const MAX_TEMPLATES = 16;

/** What a line's expansion may grow to: the caps of a recorded stream. */
export interface ExpansionCaps {
  readonly events: number;
  readonly eventBytes: number;
  readonly streamBytes: number;
}

type Fail = (field: string, expected: string) => never;

/** One run of compact events of template `t`: delays and texts, one each per event. */
interface CompactRun {
  readonly t: number;
  readonly ms: unknown[];
  readonly text: unknown[];
}

/**
 * `value` (a parsed line) with its compact stream events expanded (`reply.templates`
 * gone, each run `{t, ms, text}` its events `{ms, data}`), or `value` itself when it
 * has none. The count of events is held to `caps.events`, each expanded event to
 * `caps.eventBytes` and all of them to `caps.streamBytes` as they are made, so a
 * line cannot grow past what a live stream could have held.
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
  const events: unknown[] = [];
  let bytes = 0;
  const count = (field: string, added: number) => {
    bytes += added;
    if (events.length > caps.events) fail('reply.events', `at most ${caps.events} events`);
    if (added > caps.eventBytes) fail(field, `at most ${caps.eventBytes} bytes (a live event's cap)`);
    if (bytes > caps.streamBytes)
      fail('reply.events', `at most ${caps.streamBytes} bytes in all (a live reply's cap)`);
  };
  (reply.events as unknown[]).forEach((element, index) => {
    const field = `reply.events[${index}]`;
    if (!isObject(element) || !('t' in element)) {
      events.push(element);
      count(field, isObject(element) && typeof element.data === 'string' ? element.data.length : 0);
      return;
    }
    const run = element as unknown as CompactRun;
    const pair = Number.isInteger(run.t) ? pairs[run.t] : undefined;
    if (
      pair === undefined ||
      !Array.isArray(run.ms) ||
      !Array.isArray(run.text) ||
      run.ms.length !== run.text.length ||
      Object.keys(element).length !== 3
    ) {
      fail(field, 'a run {t, ms, text}: t a template of reply.templates, ms and text lists of one length');
    }
    const [before, after] = pair as [string, string];
    for (let at = 0; at < run.text.length; at += 1) {
      const text = run.text[at];
      if (typeof text !== 'string' || !verbatim(text)) {
        fail(`${field}.text[${at}]`, 'a string without quotes, backslashes or control characters');
      }
      const data = `${before}"${text as string}"${after}`;
      events.push({ ms: run.ms[at], data });
      count(field, data.length);
    }
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
