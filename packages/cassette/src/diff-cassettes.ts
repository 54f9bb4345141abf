import { requestHash } from './canonical-json.js';
import type { CassetteEntry } from './cassette-entry.js';
import { describeDifference, jsonDifferences } from './json-differences.js';
import type { Cassette } from './read-cassette.js';

/** One change between two cassettes: a call added, removed, or whose request or reply changed. */
export interface CassetteChange {
  readonly change: 'added' | 'removed' | 'request' | 'reply';
  /** The call's number in the first cassette, or null (added). */
  readonly before: number | null;
  /** The call's number in the second cassette, or null (removed). */
  readonly after: number | null;
  /** The call's model (in the second cassette when it is there). */
  readonly model: string;
  /** `path: A x, B y` lines; empty for an added or removed call. */
  readonly differences: readonly string[];
}

// What changes on every recording without saying anything: delays, reply ids and times.
const NOISE = new Set(['ms', 'id', 'created', 'system_fingerprint']);

function withoutNoise(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (key, field) => (NOISE.has(key) ? undefined : field)));
}

function outcomeOf(entry: CassetteEntry): unknown {
  return withoutNoise({ attempts: entry.attempts, reply: entry.reply, pricing: entry.pricing });
}

const LABELS = ['A', 'B'];

/**
 * What changed from cassette `a` to cassette `b`: calls are paired by request
 * (in recorded order, as replay pairs them); a paired call whose attempts, reply
 * or pricing differ (delays, reply ids and times aside) is a `reply` change; an
 * unpaired call of `b` is paired with the nearest unpaired one of `a` as a
 * `request` change; what is left is `added` or `removed`.
 */
export function diffCassettes(a: Cassette, b: Cassette): CassetteChange[] {
  const unused = new Set(a.entries);
  const changes: CassetteChange[] = [];
  const unpaired: CassetteEntry[] = [];
  for (const entry of b.entries) {
    const hash = requestHash(entry.request);
    const pair = [...unused].find((candidate) => requestHash(candidate.request) === hash);
    if (pair === undefined) {
      unpaired.push(entry);
      continue;
    }
    unused.delete(pair);
    const differences = jsonDifferences(outcomeOf(pair), outcomeOf(entry));
    if (differences.length > 0)
      changes.push(
        change(
          'reply',
          pair,
          entry,
          differences.map((d) => describeDifference(d, LABELS)),
        ),
      );
  }
  for (const entry of unpaired) {
    let nearest: CassetteEntry | null = null;
    let nearestDifferences: string[] = [];
    for (const candidate of unused) {
      const differences = jsonDifferences(candidate.request, entry.request).map((d) =>
        describeDifference(d, LABELS),
      );
      if (nearest === null || differences.length < nearestDifferences.length) {
        nearest = candidate;
        nearestDifferences = differences;
      }
    }
    if (nearest !== null && nearest.request.model === entry.request.model) {
      unused.delete(nearest);
      changes.push(change('request', nearest, entry, nearestDifferences));
    } else {
      changes.push(change('added', null, entry, []));
    }
  }
  for (const entry of unused) changes.push(change('removed', entry, null, []));
  return changes.sort((x, y) => (x.after ?? x.before ?? 0) - (y.after ?? y.before ?? 0));
}

function change(
  kind: CassetteChange['change'],
  before: CassetteEntry | null,
  after: CassetteEntry | null,
  differences: string[],
): CassetteChange {
  return {
    change: kind,
    before: before?.call ?? null,
    after: after?.call ?? null,
    model: String((after ?? before)?.request.model),
    differences,
  };
}
