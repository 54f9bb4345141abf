import type { SequenceFinding } from './verify-findings.js';

/** Most writers (host and process) followed; lines of further ones are counted as not numbered. */
const MAX_WRITERS = 10_000;
/** Most gaps held open at once (a later line may still fill one), and most held to the end; further ones are final at once. */
const MAX_OPEN_GAPS = 10_000;
const MAX_CLOSED_GAPS = 10_000;

/** Numbers of a writer's run that no line had so far (a later line may still fill some). */
interface Gap {
  from: number;
  to: number;
  /** The writer's line before the gap (0: the file's start) and the one after it. */
  readonly afterLine: number;
  readonly beforeLine: number;
  /** Unreadable lines the file had between those two. */
  readonly skippedBetween: number;
}

/** One run of a writer: its lines numbered from 1 (a process id used again, or a journal reopened, starts another). */
interface Run {
  readonly id: number;
  last: number;
  lastLine: number;
  lastAt: number;
  skippedAtLast: number;
  readonly gaps: Gap[];
}

interface Writer {
  readonly host: string;
  readonly pid: number | null;
  run: Run;
}

/**
 * What the check of each writer's line numbers found (`JournalVerification.sequence`).
 *
 * @inline
 */
export interface SequenceFigures {
  /** Writers (host and process) whose numbered lines were followed. */
  readonly writers: number;
  /** Numbers missing from the writers' sequences (lines dropped), not counting those unreadable lines explain. */
  readonly missing: number;
  /** Numbers missing where unreadable lines were, as many as those lines: counted with the unreadable lines. */
  readonly explained: number;
  readonly duplicates: number;
  readonly outOfOrder: number;
  /** How many findings there are, and the first ones by line (at most `maxListed`). */
  readonly findingCount: number;
  readonly findings: readonly SequenceFinding[];
}

/**
 * Follows each writer's numbering of its lines (`host`, `pid`, `seq`: 1, 2, 3… in the order
 * written) through a journal read in order, in memory bounded by the writers and the gaps open
 * at once: a number skipped is a missing line, unless a later line fills it (then that line is
 * out of order); a number already seen is a repeated line; a writer whose number starts again
 * at 1, later than its last line, is a new run of it (its process id used again, or its
 * journal opened again).
 */
export class LineSequences {
  readonly #maxListed: number;
  readonly #writers = new Map<string, Writer>();
  readonly #closed: { writer: Writer; gap: Gap }[] = [];
  #openGaps = 0;
  #runs = 0;
  #missing = 0;
  #explained = 0;
  #duplicates = 0;
  #outOfOrder = 0;
  #findingCount = 0;
  // The first findings made while reading (in line order), and the first missing lines named.
  readonly #found: SequenceFinding[] = [];
  readonly #foundMissing: SequenceFinding[] = [];
  #finished = false;

  constructor(maxListed: number) {
    this.#maxListed = maxListed;
  }

  /**
   * Follows one numbered line: its writer, number, time (epoch ms) and the count of unreadable
   * lines so far. Returns its writer's run (a key of host, process and run), or null when too
   * many writers are followed already (the line is then not numbered, for the caller to count).
   */
  add(
    line: number,
    host: string,
    pid: number | null,
    seq: number,
    at: number,
    skipped: number,
  ): string | null {
    const key = `${host}\u0000${pid ?? ''}`;
    let writer = this.#writers.get(key);
    if (writer === undefined) {
      if (this.#writers.size >= MAX_WRITERS) return null;
      writer = { host, pid, run: this.#newRun() };
      this.#writers.set(key, writer);
    }
    let run = writer.run;
    if (seq > run.last) {
      if (seq > run.last + 1) this.#open(writer, run, seq, line, skipped);
      this.#advance(run, seq, line, at, skipped);
    } else if (this.#fill(run, seq)) {
      this.#outOfOrder += 1;
      this.#find(
        writer,
        'out-of-order',
        line,
        seq,
        `seq ${seq} of ${named(writer)} comes after seq ${run.last} (line ${run.lastLine})`,
      );
    } else if (seq === 1 && at > run.lastAt) {
      this.#closeRun(writer);
      run = this.#newRun();
      writer.run = run;
      this.#advance(run, seq, line, at, skipped);
    } else {
      this.#duplicates += 1;
      this.#find(
        writer,
        'duplicate',
        line,
        seq,
        `seq ${seq} of ${named(writer)} again, after seq ${run.last} (line ${run.lastLine})`,
      );
    }
    return `${key}\u0000${run.id}`;
  }

  /** Names a line whose call an earlier line already has (found by its `callId`). */
  duplicateCall(
    line: number,
    host: string,
    pid: number | null,
    seq: number | null,
    callId: string,
    earlier: number,
  ): void {
    this.#duplicates += 1;
    this.#find(
      { host, pid },
      'duplicate',
      line,
      seq,
      `the same call as line ${earlier} (callId ${JSON.stringify(callId)})`,
    );
  }

  /**
   * Ends the journal, `skipped` its unreadable lines: each gap still open is missing lines,
   * unless as many unreadable lines lie between its neighbours (each such line explains one).
   */
  finish(skipped: number): void {
    if (this.#finished) return;
    this.#finished = true;
    for (const writer of this.#writers.values()) this.#closeRun(writer);
    let spare = skipped;
    this.#closed.sort((one, two) => one.gap.beforeLine - two.gap.beforeLine);
    for (const { writer, gap } of this.#closed) {
      const count = gap.to - gap.from + 1;
      if (count <= gap.skippedBetween && count <= spare) {
        spare -= count;
        this.#explained += count;
      } else this.#declare(writer, gap);
    }
    this.#closed.length = 0;
  }

  /** What was found (call {@link finish} first). */
  result(): SequenceFigures {
    const findings = [...this.#found, ...this.#foundMissing]
      .sort((one, two) => one.line - two.line)
      .slice(0, this.#maxListed);
    return Object.freeze({
      writers: this.#writers.size,
      missing: this.#missing,
      explained: this.#explained,
      duplicates: this.#duplicates,
      outOfOrder: this.#outOfOrder,
      findingCount: this.#findingCount,
      findings: Object.freeze(findings),
    });
  }

  #newRun(): Run {
    this.#runs += 1;
    return {
      id: this.#runs,
      last: 0,
      lastLine: 0,
      lastAt: Number.NEGATIVE_INFINITY,
      skippedAtLast: 0,
      gaps: [],
    };
  }

  #advance(run: Run, seq: number, line: number, at: number, skipped: number): void {
    run.last = seq;
    run.lastLine = line;
    run.lastAt = Math.max(run.lastAt, at);
    run.skippedAtLast = skipped;
  }

  // Numbers run.last + 1 to seq − 1 have no line yet.
  #open(writer: Writer, run: Run, seq: number, line: number, skipped: number): void {
    const gap: Gap = {
      from: run.last + 1,
      to: seq - 1,
      afterLine: run.lastLine,
      beforeLine: line,
      skippedBetween: skipped - run.skippedAtLast,
    };
    if (this.#openGaps >= MAX_OPEN_GAPS) {
      this.#declare(writer, gap);
      return;
    }
    this.#openGaps += 1;
    run.gaps.push(gap);
  }

  // Whether seq was in one of the run's open gaps (which then no longer holds it).
  #fill(run: Run, seq: number): boolean {
    const gaps = run.gaps;
    let low = 0;
    let high = gaps.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const gap = gaps[middle] as Gap;
      if (seq < gap.from) high = middle - 1;
      else if (seq > gap.to) low = middle + 1;
      else {
        if (gap.from === gap.to) {
          gaps.splice(middle, 1);
          this.#openGaps -= 1;
        } else if (seq === gap.from) gap.from += 1;
        else if (seq === gap.to) gap.to -= 1;
        else {
          gaps.splice(middle + 1, 0, { ...gap, from: seq + 1 });
          gap.to = seq - 1;
          this.#openGaps += 1;
        }
        return true;
      }
    }
    return false;
  }

  #closeRun(writer: Writer): void {
    for (const gap of writer.run.gaps) {
      if (this.#closed.length < MAX_CLOSED_GAPS) this.#closed.push({ writer, gap });
      else this.#declare(writer, gap);
    }
    this.#openGaps -= writer.run.gaps.length;
    writer.run.gaps.length = 0;
  }

  // The gap's numbers are missing lines.
  #declare(writer: Writer, gap: Gap): void {
    const count = gap.to - gap.from + 1;
    this.#missing += count;
    const numbers = count === 1 ? `seq ${gap.from}` : `seq ${gap.from}–${gap.to} (${count} lines)`;
    const where =
      gap.afterLine === 0
        ? `before line ${gap.beforeLine}, the writer's first in the file`
        : `between lines ${gap.afterLine} and ${gap.beforeLine}`;
    this.#find(
      writer,
      'missing',
      gap.beforeLine,
      gap.from,
      `${numbers} of ${named(writer)} ${count === 1 ? 'is' : 'are'} in no line (${where})`,
    );
  }

  #find(
    writer: Pick<Writer, 'host' | 'pid'>,
    kind: SequenceFinding['kind'],
    line: number,
    seq: number | null,
    why: string,
  ): void {
    this.#findingCount += 1;
    const list = kind === 'missing' ? this.#foundMissing : this.#found;
    if (list.length < this.#maxListed)
      list.push(Object.freeze({ kind, line, host: writer.host, pid: writer.pid, seq, why }));
  }
}

function named(writer: Pick<Writer, 'host' | 'pid'>): string {
  return `host ${JSON.stringify(writer.host)} pid ${writer.pid ?? '(none)'}`;
}
