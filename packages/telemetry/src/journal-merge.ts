import { createReadStream } from 'node:fs';
import type { CheckedJournalLine } from './check-journal-line.js';
import { JOURNAL_LIMITS } from './journal-limits.js';
import { type JournalIssue, lineHandler } from './read-journal.js';
import { type JournalSource, LineSplitter, openSource } from './scan-lines.js';

/** One of the journals `reportJournals` and `verifyJournals` read: how messages name it, and where it is read from. */
export interface NamedJournal {
  readonly name: string;
  readonly source: JournalSource;
}

/** A line as {@link mergeJournals} hands it to `onLine`, in the merged order. */
export interface MergedLine {
  readonly checked: CheckedJournalLine;
  /** Index of its journal in the list given. */
  readonly journal: number;
  /** Its 1-based number in that journal. */
  readonly line: number;
  /** When the call ended, epoch ms: `at` plus `durationMs` (the merge's order). */
  readonly end: number;
  /** The line's text, as written. */
  readonly text: string;
}

/** Options of {@link mergeJournals}. */
export interface MergeJournalsOptions {
  /** Told each line of a journal that is skipped (named `file:line`). */
  readonly onIssue: (issue: JournalIssue) => void;
  /** Told a journal that could not be opened or read to its end (its lines read before count). */
  readonly onUnreadable: (journal: number, error: unknown) => void;
}

/** Bytes read at once over all the journals, and the most and least for one. */
const READ_BYTES = 512 * 1024;
const MOST_READ_BYTES = 256 * 1024;
const LEAST_READ_BYTES = 16 * 1024;

/** One journal being read: the lines of its last read, waiting their turn. */
class Cursor {
  readonly index: number;
  readonly #chunks: AsyncIterator<Uint8Array | string>;
  readonly #splitter: LineSplitter;
  readonly #onUnreadable: (journal: number, error: unknown) => void;
  #ready: MergedLine[] = [];
  #next = 0;
  #done = false;

  constructor(index: number, journal: NamedJournal, options: MergeJournalsOptions, readBytes: number) {
    this.index = index;
    this.#onUnreadable = options.onUnreadable;
    const { source } = journal;
    // A file is read in pieces sized by the number of journals: the lines parsed and waiting their turn stay
    // about as many with twelve journals as with one, so they die young instead of filling the old heap.
    const chunks =
      typeof source === 'string' && source !== '-'
        ? createReadStream(source, { highWaterMark: readBytes })
        : openSource(source);
    this.#chunks = chunks[Symbol.asyncIterator]();
    this.#splitter = new LineSplitter(
      JOURNAL_LIMITS.maxLineBytes,
      lineHandler(journal.name, options.onIssue, (checked, line, text) => {
        this.#ready.push({ checked, journal: index, line, end: endOf(checked), text });
      }),
    );
  }

  /** The next line, without taking it (undefined once the journal is read). */
  get head(): MergedLine | undefined {
    return this.#ready[this.#next];
  }

  take(): void {
    this.#next += 1;
  }

  /** Reads on until a line is ready or the journal ends: false when it has ended. */
  async fill(): Promise<boolean> {
    while (this.#next >= this.#ready.length) {
      if (this.#done) return false;
      this.#ready = [];
      this.#next = 0;
      try {
        const read = await this.#chunks.next();
        if (read.done) {
          this.#done = true;
          this.#splitter.end();
        } else this.#splitter.push(read.value);
      } catch (error) {
        this.#done = true;
        this.#onUnreadable(this.index, error);
        await this.#chunks.return?.().catch(() => undefined);
      }
    }
    return true;
  }
}

/**
 * Reads several journals at once and hands their lines to `onLine` merged by the time each call ended
 * (`at` + `durationMs`; ties by journal, then line): a k-way merge of the journals as they are
 * read, one read's lines of each held at a time (512 KiB read over all the journals, 16 to 256 KiB
 * each), so memory is bounded by the number of journals, never by their lines. A journal writes each line when its call ends, so its own lines come in
 * that order already (a line out of it is handed over where the journal has it: each journal's own
 * order is always kept). Lines that cannot be trusted are skipped and told to `onIssue`; a journal
 * that cannot be read is told to `onUnreadable` and the others are read on.
 */
export async function mergeJournals(
  journals: readonly NamedJournal[],
  options: MergeJournalsOptions,
  onLine: (line: MergedLine) => void,
): Promise<void> {
  const heap: Cursor[] = [];
  const readBytes = Math.min(
    MOST_READ_BYTES,
    Math.max(LEAST_READ_BYTES, Math.floor(READ_BYTES / journals.length)),
  );
  for (const [index, journal] of journals.entries()) {
    let cursor: Cursor;
    try {
      cursor = new Cursor(index, journal, options, readBytes);
    } catch (error) {
      options.onUnreadable(index, error);
      continue;
    }
    if (await cursor.fill()) push(heap, cursor);
  }
  while (heap.length > 0) {
    const cursor = heap[0] as Cursor;
    onLine(cursor.head as MergedLine);
    cursor.take();
    // Only a journal whose read is used up is waited for: the other lines are handed over without a pause.
    if (cursor.head === undefined && !(await cursor.fill())) {
      const last = heap.pop() as Cursor;
      if (heap.length > 0) {
        heap[0] = last;
        down(heap, 0);
      }
    } else down(heap, 0);
  }
}

/** When the line's call ended: `at` plus its duration (a line without one: `at`). */
function endOf(checked: CheckedJournalLine): number {
  const duration = checked.line.durationMs;
  return typeof duration === 'number' && Number.isFinite(duration) && duration > 0
    ? checked.at + Math.round(duration)
    : checked.at;
}

function before(a: Cursor, b: Cursor): boolean {
  const lineA = a.head as MergedLine;
  const lineB = b.head as MergedLine;
  return lineA.end < lineB.end || (lineA.end === lineB.end && a.index < b.index);
}

function push(heap: Cursor[], cursor: Cursor): void {
  heap.push(cursor);
  let at = heap.length - 1;
  while (at > 0) {
    const parent = (at - 1) >> 1;
    if (!before(heap[at] as Cursor, heap[parent] as Cursor)) break;
    [heap[at], heap[parent]] = [heap[parent] as Cursor, heap[at] as Cursor];
    at = parent;
  }
}

function down(heap: Cursor[], start: number): void {
  let at = start;
  for (;;) {
    const left = 2 * at + 1;
    const right = left + 1;
    let least = at;
    if (left < heap.length && before(heap[left] as Cursor, heap[least] as Cursor)) least = left;
    if (right < heap.length && before(heap[right] as Cursor, heap[least] as Cursor)) least = right;
    if (least === at) return;
    [heap[at], heap[least]] = [heap[least] as Cursor, heap[at] as Cursor];
    at = least;
  }
}
