import { type Finding, findSecrets, type SecretRules, scrubPieces, scrubString } from './secret-scan.js';

/**
 * Secrets in JSON values, as a reader would put them together: every string
 * (object keys too), and the strings that belong to one text joined in order
 * before they are scanned — the same field of every element of an array (a
 * stream's deltas of one choice and field, logprobs tokens, a message list), an
 * element with a numeric `index` (a choice, a tool call) kept apart from the
 * others. A `bytes` array of numbers (logprobs) is read as the bytes it lists.
 */

/** One string of a JSON value, read and written in place. */
interface Piece {
  get(): string;
  set(text: string): void;
}

/** The pieces of each text, by the path they share (array positions left out). */
type Groups = Map<string, Piece[]>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isByteList(value: unknown): value is number[] {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((item) => Number.isInteger(item) && (item as number) >= 0 && (item as number) <= 255)
  );
}

function elementPath(path: string, element: unknown): string {
  const index = isRecord(element) ? element.index : undefined;
  return typeof index === 'number' ? `${path}[#${index}]` : `${path}[]`;
}

function add(groups: Groups, path: string, piece: Piece): void {
  const group = groups.get(path);
  if (group) group.push(piece);
  else groups.set(path, [piece]);
}

/** Collects every string (and byte list) of `value` into `groups`; object keys into `names`. */
function collect(value: unknown, path: string, groups: Groups, names: Array<[string, Piece]>): void {
  if (Array.isArray(value)) {
    value.forEach((element, index) => {
      if (typeof element === 'string') {
        add(groups, elementPath(path, element), {
          get: () => value[index] as string,
          set: (text) => {
            value[index] = text;
          },
        });
      } else collect(element, elementPath(path, element), groups, names);
    });
    return;
  }
  if (!isRecord(value)) return;
  for (const name of Object.keys(value)) {
    const field = value[name];
    const fieldPath = `${path}.${name}`;
    names.push([
      `${path}{}`,
      {
        get: () => name,
        set: () => {},
      },
    ]);
    if (typeof field === 'string') {
      add(groups, fieldPath, {
        get: () => value[name] as string,
        set: (text) => {
          value[name] = text;
        },
      });
    } else if (name === 'bytes' && isByteList(field)) {
      add(groups, fieldPath, {
        get: () => (value[name] as number[]).map((byte) => String.fromCharCode(byte)).join(''),
        set: (text) => {
          value[name] = Array.from(text, (unit) => unit.charCodeAt(0) & 0xff);
        },
      });
    } else collect(field, fieldPath, groups, names);
  }
}

/** A deep copy of a JSON value, each object key scrubbed (objects without a prototype, so any key is data). */
function copyWithNames(value: unknown, rules: SecretRules): unknown {
  if (Array.isArray(value)) return value.map((item) => copyWithNames(item, rules));
  if (!isRecord(value)) return value;
  const copy: Record<string, unknown> = Object.create(null);
  for (const [name, field] of Object.entries(value))
    copy[scrubString(name, rules)] = copyWithNames(field, rules);
  return copy;
}

/**
 * A deep copy of a JSON value with every secret of `rules` removed: from every
 * string and key as is or decoded, and from the texts its strings make together
 * (see the module's comment), each removed run replaced by the marker.
 */
export function scrubJson<T>(value: T, rules: SecretRules): T {
  const copy = copyWithNames(value, rules);
  const groups: Groups = new Map();
  collect(copy, '$', groups, []);
  for (const pieces of groups.values()) {
    const before = pieces.map((piece) => piece.get());
    const after = scrubPieces(before, rules);
    after.forEach((text, index) => {
      if (text !== before[index]) pieces[index]?.set(text);
    });
  }
  return copy as T;
}

/** A secret found in a JSON value: where (a path, array positions left out), what and in which form. */
export interface JsonFinding {
  readonly path: string;
  readonly what: string;
  readonly form: string;
}

/** Every secret of `rules` in a JSON value, as {@link scrubJson} would find it; never the secret itself. */
export function findJsonSecrets(value: unknown, rules: SecretRules): JsonFinding[] {
  const groups: Groups = new Map();
  const names: Array<[string, Piece]> = [];
  collect(value, '$', groups, names);
  const found: JsonFinding[] = [];
  const seen = new Set<string>();
  const report = (path: string, finding: Finding, pieces: number) => {
    const form = pieces > 1 ? `${finding.form}, split across ${pieces} strings` : finding.form;
    const key = `${path}\u0000${finding.what}\u0000${form}`;
    if (seen.has(key)) return;
    seen.add(key);
    found.push({ path, what: finding.what, form });
  };
  for (const [path, piece] of names) {
    for (const finding of findSecrets(piece.get(), rules)) report(`${path} (a key)`, finding, 1);
  }
  for (const [path, pieces] of groups) {
    const texts = pieces.map((piece) => piece.get());
    const ends: number[] = [];
    let total = 0;
    for (const text of texts) {
      total += text.length;
      ends.push(total);
    }
    for (const finding of findSecrets(texts.join(''), rules)) {
      const first = ends.findIndex((end) => end > finding.start);
      const last = ends.findIndex((end) => end >= finding.end);
      report(path, finding, last - first + 1);
    }
  }
  return found;
}

/** A recorded stream event, with its data parsed when it is JSON (what a reader of it sees). */
export type ExpandedEvent = Record<string, unknown>;

/**
 * A stream's events with each JSON `data` parsed into `json` (what the adapter
 * reads), so scanning sees decoded strings and joins deltas across events.
 */
export function expandEvents(events: readonly unknown[]): ExpandedEvent[] {
  return events.map((event) => {
    if (!isRecord(event) || typeof event.data !== 'string') return event as ExpandedEvent;
    const parsed = parseJson(event.data);
    if (parsed === undefined) return event;
    const { data: _data, ...rest } = event;
    return { ...rest, json: parsed };
  });
}

/** The events back as recorded: `json` written as its data (standard JSON, keys in their order). */
export function collapseEvents(events: readonly ExpandedEvent[]): ExpandedEvent[] {
  return events.map((event) => {
    if (!('json' in event)) return event;
    const { json, ...rest } = event;
    const { ms, ...others } = rest;
    return { ms, data: JSON.stringify(json), ...others };
  });
}

/** An event's data as JSON when it is an object or array, else undefined. */
function parseJson(data: string): unknown {
  const start = data.trimStart()[0];
  if (start !== '{' && start !== '[') return undefined;
  try {
    return JSON.parse(data) as unknown;
  } catch {
    return undefined;
  }
}

/** An entry-like value with its stream events (`reply.events`) expanded, for scanning. */
export function expandEntry(value: unknown): unknown {
  if (!isRecord(value) || !isRecord(value.reply) || !Array.isArray(value.reply.events)) return value;
  return { ...value, reply: { ...value.reply, events: expandEvents(value.reply.events) } };
}
