import type { ArrivedEvents } from './arrived-events.js';
import { requestHash } from './canonical-json.js';
import type { CassetteEntry } from './cassette-entry.js';
import { describeFinding } from './cassette-line.js';
import { CassetteSecretError } from './cassette-secret-error.js';
import { writeCompactly } from './compact-events.js';
import { collect } from './json-paths.js';
import { collapseEvents, copyWithNames, expandEvents, firstFinding, scrubOwnedJson } from './json-secrets.js';
import type { SecretRules } from './secret-scan.js';

/** What a call made, before it is scrubbed: an entry without its place in the file and without its match hash. */
export type RawEntry = Omit<CassetteEntry, 'call' | 'run' | 'process' | 'seq' | 'match'>;

declare const CLEAN: unique symbol;

/** An entry scrubbed whole and found clean by a last scan of it: the only kind a writer appends. */
export type CleanEntry = Omit<CassetteEntry, 'call' | 'run' | 'process' | 'seq'> & { readonly [CLEAN]: true };

/**
 * `raw` as a line of the cassette at `path` may hold it: scrubbed of every secret
 * of `rules` as one JSON value, the way a reader of the line decodes it (each
 * stream event's data parsed, the deltas of each choice and field joined across
 * events; see `scrubOwnedJson`), scrubbing repeated until a scan of the whole
 * finds nothing; the match hash of the scrubbed request. That last scan is the
 * line's check: the line is this value as JSON, which reads back as this value.
 * A stream's events come `arrived` (read as they came) or are read here.
 *
 * @throws {CassetteSecretError} when a secret is still there after scrubbing: nothing may be written.
 */
export function cleanEntry(
  path: string,
  raw: RawEntry,
  rules: SecretRules,
  arrived?: ArrivedEvents,
): CleanEntry {
  const copy = <T>(value: T) => copyWithNames(value, rules) as T;
  const reply = raw.reply;
  const stream = 'events' in reply ? reply : null;
  // A stream's events are read (parsed) afresh, so owned already; everything else is the caller's, copied.
  const streamed =
    stream === null
      ? null
      : {
          status: stream.status,
          headers: copy(stream.headers),
          events: [] as unknown[],
          end: copy(stream.end),
        };
  const owned = {
    ...(raw.test === undefined ? {} : { test: raw.test }),
    key: raw.key,
    streamed: raw.streamed,
    request: copy(raw.request),
    timeoutSeconds: raw.timeoutSeconds,
    attempts: copy(raw.attempts),
    reply: streamed ?? copy(reply),
    ms: raw.ms,
    pricing: copy(raw.pricing),
  };
  if (stream !== null && streamed !== null && arrived !== undefined) {
    // Events read as they arrived: scanned as they are; when nothing is found, kept as they came.
    const collected = collect(owned);
    arrived.collectInto(collected.root.field('reply').field('events'), collected.names);
    if (firstFinding(collected, rules) === undefined) {
      const line = arrived.lineEvents();
      if (line === null) streamed.events = arrived.unchanged();
      else {
        // Written compactly: the events made whole only when something reads the entry's (a replay's state).
        writeCompactly(streamed, line);
        let events: unknown[] | null = null;
        Object.defineProperty(streamed, 'events', {
          get: () => {
            events ??= arrived.unchanged();
            return events;
          },
          enumerable: true,
        });
      }
      return { ...owned, match: requestHash(owned.request) } as unknown as CleanEntry;
    }
  }
  if (stream !== null && streamed !== null)
    streamed.events = arrived?.expandAll() ?? expandEvents(stream.events);
  const { value, changed, left } = scrubOwnedJson(owned, rules);
  if (left !== undefined) {
    throw new CassetteSecretError(
      path,
      `refusing to write a call to the cassette ${path}: it would store ${describeFinding(left)}; nothing was written, and the call fails`,
    );
  }
  if (stream !== null) {
    const events = (value.reply as { events: Record<string, unknown>[] }).events;
    (value.reply as { events: unknown[] }).events = collapseEvents(
      events,
      stream.events,
      changed ? null : (arrived?.asIs ?? null),
    );
  }
  return { ...value, match: requestHash(value.request) } as unknown as CleanEntry;
}
