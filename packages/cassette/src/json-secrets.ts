import { type Collected, collect, isRecord } from './json-paths.js';
import {
  type Finding,
  findInPieces,
  findSecrets,
  repeatsClean,
  type SecretRules,
  scrubPiecesChecked,
  scrubString,
} from './secret-scan.js';

/**
 * Secrets in JSON values, as a reader would put them together (see `collect`):
 * the strings of one text joined before they are scanned, each distinct object
 * key scanned once, however often it repeats.
 */

/**
 * A deep copy of a JSON value, each object key scrubbed (objects without a
 * prototype, so any key is data). `names` remembers each key's scrubbed form.
 */
export function copyWithNames(
  value: unknown,
  rules: SecretRules,
  names = new Map<string, string>(),
): unknown {
  if (Array.isArray(value)) return value.map((item) => copyWithNames(item, rules, names));
  if (!isRecord(value)) return value;
  const copy: Record<string, unknown> = Object.create(null);
  for (const [name, field] of Object.entries(value)) {
    let scrubbed = names.get(name);
    if (scrubbed === undefined) {
      scrubbed = scrubString(name, rules);
      names.set(name, scrubbed);
    }
    copy[scrubbed] = copyWithNames(field, rules, names);
  }
  return copy;
}

/** What `scrubOwnedJson` did. */
export interface Scrubbed<T> {
  readonly value: T;
  /** Whether anything was removed. */
  readonly changed: boolean;
  /** A secret a last scan still found, when scrubbing could not remove it (then the value must not be kept). */
  readonly left: JsonFinding | undefined;
}

/**
 * `value` with every secret of `rules` removed: from every string and key as is
 * or decoded, and from the texts its strings make together (see the module's
 * comment), each removed run replaced by the marker. `value` is the caller's to
 * give up (freshly parsed or copied): its strings are replaced in place, and it
 * is copied only when an object key holds a secret.
 */
export function scrubOwnedJson<T>(value: T, rules: SecretRules): Scrubbed<T> {
  let current: unknown = value;
  let collected = collect(current);
  let changed = false;
  let left: JsonFinding | undefined;
  if (firstFinding(collected, rules, 'keys') !== undefined) {
    current = copyWithNames(current, rules);
    collected = collect(current);
    changed = true;
    left = firstFinding(collected, rules, 'keys');
  }
  for (const node of collected.root.groups()) {
    const before = node.texts();
    const after = scrubPiecesChecked(before, rules);
    if (after.changed) {
      changed = true;
      after.pieces.forEach((text, index) => {
        if (text !== before[index]) node.replace(index, text);
      });
    }
    if (after.left !== undefined && left === undefined) {
      left = { path: node.path, what: after.left.what, form: after.left.form };
    }
  }
  return { value: current as T, changed, left };
}

/**
 * The first secret of `rules` in a collected value: in its object keys, and (unless
 * only `keys` are asked for) in the texts its strings make; none when it is clean.
 */
export function firstFinding(
  collected: Collected,
  rules: SecretRules,
  only?: 'keys',
): JsonFinding | undefined {
  for (const [name, path] of collected.names) {
    const [finding] = findSecrets(name, rules);
    if (finding !== undefined) return { path: `${path} (a key)`, what: finding.what, form: finding.form };
  }
  if (only === 'keys') return undefined;
  for (const node of collected.root.groups()) {
    // A field every event repeats unchanged (a stream's id or model): scanned as a few copies.
    const repeated = node.repeated();
    if (repeated !== null && repeatsClean(repeated.text, repeated.count, rules)) continue;
    const [finding] = findInPieces(node.texts(), rules);
    if (finding !== undefined) return { path: node.path, what: finding.what, form: finding.form };
  }
  return undefined;
}

/** A deep copy of a JSON value with every secret of `rules` removed (see `scrubOwnedJson`). */
export function scrubJson<T>(value: T, rules: SecretRules): T {
  return scrubOwnedJson(copyWithNames(value, rules) as T, rules).value;
}

/** A secret found in a JSON value: where (a path, array positions left out), what and in which form. */
export interface JsonFinding {
  readonly path: string;
  readonly what: string;
  readonly form: string;
}

/** The index of the piece a text position falls in, given each piece's end (binary search). */
function pieceAt(ends: readonly number[], position: number): number {
  let low = 0;
  let high = ends.length - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((ends[middle] as number) > position) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** Every secret of `rules` in a JSON value, as {@link scrubJson} would find it; never the secret itself. */
export function findJsonSecrets(value: unknown, rules: SecretRules): JsonFinding[] {
  const { root, names } = collect(value);
  const found: JsonFinding[] = [];
  const seen = new Set<string>();
  const report = (path: string, finding: Finding, pieces: number) => {
    const form = pieces > 1 ? `${finding.form}, split across ${pieces} strings` : finding.form;
    const key = `${path}\u0000${finding.what}\u0000${form}`;
    if (seen.has(key)) return;
    seen.add(key);
    found.push({ path, what: finding.what, form });
  };
  for (const [name, path] of names) {
    for (const finding of findSecrets(name, rules)) report(`${path} (a key)`, finding, 1);
  }
  for (const node of root.groups()) {
    const texts = node.texts();
    const ends: number[] = [];
    let total = 0;
    for (const text of texts) {
      total += text.length;
      ends.push(total);
    }
    for (const finding of findInPieces(texts, rules)) {
      report(node.path, finding, pieceAt(ends, finding.end - 1) - pieceAt(ends, finding.start) + 1);
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
  return events.map(expandEvent);
}

/** One event with its JSON `data` parsed into `json` (a fresh object), else the event itself. */
export function expandEvent(event: unknown): ExpandedEvent {
  if (!isRecord(event) || typeof event.data !== 'string') return event as ExpandedEvent;
  const parsed = parseJson(event.data);
  if (parsed === undefined) return event;
  const expanded: ExpandedEvent = {};
  for (const name in event) if (name !== 'data' && Object.hasOwn(event, name)) expanded[name] = event[name];
  expanded.json = parsed;
  return expanded;
}

/**
 * The events back as recorded: `json` written as its data. An event whose data
 * `asIs` says reads as written (see `readsAsWritten`), in a value scrubbing left
 * alone, keeps its data as it came; any other is written as standard JSON
 * (JSON.stringify of what was parsed: no escape hides anything, a repeated key is
 * gone). `originals` are the events before `expandEvent`.
 */
export function collapseEvents(
  events: readonly ExpandedEvent[],
  originals: readonly unknown[],
  asIs: readonly boolean[] | null,
): ExpandedEvent[] {
  return events.map((event, index) => {
    if (!('json' in event)) return event;
    const data =
      asIs?.[index] === true ? (originals[index] as { data: string }).data : JSON.stringify(event.json);
    // As recorded: ms, then data, then the rest (an event name).
    const collapsed: ExpandedEvent = { ms: event.ms, data };
    for (const name in event) {
      if (name !== 'json' && name !== 'ms' && Object.hasOwn(event, name)) collapsed[name] = event[name];
    }
    return collapsed;
  });
}

/**
 * Whether JSON text `data`, parsed as `parsed`, reads as written: it holds no
 * escape, and exactly the keys and strings `parsed` has (no key given twice,
 * which a parse drops and a reader of the text still sees).
 */
export function readsAsWritten(data: string, parsed: unknown): boolean {
  if (data.includes('\\')) return false;
  let quotes = 0;
  for (let at = data.indexOf('"'); at >= 0; at = data.indexOf('"', at + 1)) quotes += 1;
  // Without escapes every quote opens or closes a key or a string: a key given twice adds quotes the parse dropped.
  return quotes === 2 * stringsIn(parsed);
}

function stringsIn(value: unknown): number {
  if (typeof value === 'string') return 1;
  if (typeof value !== 'object' || value === null) return 0;
  let count = 0;
  if (Array.isArray(value)) for (const item of value) count += stringsIn(item);
  else for (const name in value) count += 1 + stringsIn((value as Record<string, unknown>)[name]);
  return count;
}

/** An event's data as JSON when it is an object or array, else undefined. */
function parseJson(data: string): unknown {
  const start = /\S/.exec(data)?.[0];
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
