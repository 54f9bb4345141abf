import { fnv, murmur } from './call-id-index.js';
import type { MergedLine } from './journal-merge.js';

/**
 * How long after a call's end its line is still held to find a copy of it: a minute. A journal writes its
 * lines as its calls end, so its own lines are out of that order by milliseconds, not minutes; a minute
 * also covers a clock stepped back that far. The window's memory is the calls that end within it.
 */
const REPEAT_WINDOW_MS = 60_000;
/** Most lines held at once; past it the oldest are let go early (counted in `unheld`). */
const MAX_HELD = 4_000_000;

/** Where a line was read: its journal's index and its number there. */
interface LinePlace {
  readonly journal: number;
  readonly line: number;
}

/** What {@link RepeatWindow.check} found of a line. */
export type RepeatVerdict =
  | { readonly kind: 'new' }
  /** The same text as an earlier line of the same call: a copy (a file copied twice). */
  | { readonly kind: 'copy'; readonly of: LinePlace }
  /** The same `callId` as an earlier line, another text: two accounts of one call. */
  | { readonly kind: 'conflict'; readonly of: LinePlace };

interface Held {
  readonly end: number;
  readonly text: number;
  readonly place: LinePlace;
}

/**
 * Finds lines read twice among journals merged by their calls' end ({@link mergeJournals}), in
 * memory bounded by the calls that ended within {@link REPEAT_WINDOW_MS} of one another, never by
 * all the calls: a line is keyed by its `callId` (a line of format 1, without one, by its text),
 * and held until the latest end read is more than the window past its own. A copy of a line has
 * its end, and the merge hands lines over by end, so a copy is always found — unless its own
 * journal had a line before it that ended more than the window after it (`late`: counted, so
 * the report says a copy of such a line may have gone unnoticed).
 */
export class RepeatWindow {
  readonly #held = new Map<string, Held>();
  readonly #queue: { end: number; key: string }[] = [];
  #queueStart = 0;
  #latest = Number.NEGATIVE_INFINITY;
  readonly #latestOf: number[] = [];
  /** Lines that ended more than the window before an earlier line of their journal. */
  late = 0;
  /** Lines let go early because the window held its most. */
  unheld = 0;

  /** Checks one line, in the merged order, and holds it. */
  check(merged: MergedLine): RepeatVerdict {
    const { end, journal, line } = merged;
    const latestOfJournal = this.#latestOf[journal] ?? Number.NEGATIVE_INFINITY;
    if (end < latestOfJournal - REPEAT_WINDOW_MS) this.late += 1;
    this.#latestOf[journal] = Math.max(latestOfJournal, end);
    if (end > this.#latest) {
      this.#latest = end;
      this.#evict(end - REPEAT_WINDOW_MS);
    }
    const callId = merged.checked.line.callId;
    const textHash = fnv(merged.text);
    const key =
      typeof callId === 'string' && callId !== ''
        ? `c${callId}`
        : `t${textHash.toString(36)}.${murmur(merged.text).toString(36)}`;
    const earlier = this.#held.get(key);
    if (earlier !== undefined)
      return earlier.text === textHash && earlier.end === end
        ? { kind: 'copy', of: earlier.place }
        : { kind: 'conflict', of: earlier.place };
    if (this.#held.size >= MAX_HELD) {
      this.unheld += 1;
      this.#evictOne();
    }
    this.#held.set(key, { end, text: textHash, place: { journal, line } });
    this.#queue.push({ end, key });
    return { kind: 'new' };
  }

  #evict(before: number): void {
    while (this.#queueStart < this.#queue.length) {
      const oldest = this.#queue[this.#queueStart] as { end: number; key: string };
      if (oldest.end >= before) break;
      this.#evictOne();
    }
    // The queue is compacted once its taken half is large: its memory stays that of the held lines.
    if (this.#queueStart > 65_536 && this.#queueStart * 2 > this.#queue.length) {
      this.#queue.splice(0, this.#queueStart);
      this.#queueStart = 0;
    }
  }

  #evictOne(): void {
    const oldest = this.#queue[this.#queueStart];
    if (oldest === undefined) return;
    this.#queueStart += 1;
    // A key let go and held again since has a later entry of its own: only the entry's own line goes.
    if (this.#held.get(oldest.key)?.end === oldest.end) this.#held.delete(oldest.key);
  }
}
