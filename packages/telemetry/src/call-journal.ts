import { writeSync } from 'node:fs';
import type { CallObserver } from '@switchboard/adapter';
import { registerExitFlush, unregisterExitFlush } from './exit-flush.js';
import { annotationJson } from './journal-annotation.js';
import { journalEndpoint, journalLineText } from './journal-line.js';
import { type JournalTarget, openJournalTarget, STDOUT_PATH } from './journal-target.js';
import type { EndpointInfo, TelemetryRecord } from './telemetry-record.js';

/** Options of {@link CallJournal}. */
export interface CallJournalOptions {
  /** The endpoint the observed adapter calls (provider, baseUrl, thinking); other fields are not kept. */
  readonly endpoint?: EndpointInfo | null;
  /**
   * The only way anything beyond the record goes into a line (e.g. message
   * content, when the code wants it): what it returns is kept under `extra`.
   * When it throws, returns something JSON cannot hold (a cycle, a BigInt) or
   * more than `maxAnnotationBytes`, only the annotation is lost: the line is
   * written with `extraError` saying why, the failure is counted
   * (`annotationFailures`) and warned about once.
   */
  readonly annotate?: (record: TelemetryRecord) => Record<string, unknown> | undefined;
  /** Largest annotation kept, in bytes of JSON; default 64 KiB. */
  readonly maxAnnotationBytes?: number;
  /** Queued bytes that start a write at once; default 64 KiB. */
  readonly highWaterMark?: number;
  /** Longest a line waits in the queue, in ms; default 50. */
  readonly flushIntervalMs?: number;
  /**
   * Most bytes held for lines not yet written (queued, or kept for a retry after a
   * failed write); default 16 MiB. A line that would go past it is dropped and
   * counted in `dropped`.
   */
  readonly maxQueuedBytes?: number;
  /** Flush on exit, beforeExit, SIGINT and SIGTERM; default true. */
  readonly exitHooks?: boolean;
  /** Told of each failed write (its lines stay queued and are retried); default: nothing. */
  readonly onError?: (error: unknown) => void;
  /**
   * Told the journal's warnings: once, when lines were dropped (with the count and
   * the first error), and once on the first failed annotation. Default: a process
   * warning (`JournalWarning`), or stderr at exit.
   */
  readonly warn?: (message: string) => void;
}

/** The lines of one write: their bytes, where each ends, and how far the write got. */
interface Batch {
  readonly bytes: Buffer;
  /** Byte offset just past each line's newline. */
  readonly lineEnds: number[];
  /** Bytes written so far. */
  written: number;
  /** Lines wholly written so far. */
  linesDone: number;
}

const RETRY_FIRST_MS = 50;
const RETRY_MOST_MS = 5_000;
// Journals open in this process, by file (device and inode): a second one on the same file is refused.
const openTargets = new Map<string, string>();

/**
 * An append-only JSONL journal, a `CallObserver`: one line per raw call, numbered
 * (`seq`: 1, 2, 3… in the order this journal writes them) and naming the call (`callId`) and
 * the process that made it (`host`, `pid`).
 *
 * The call path only serializes and queues the line. Queued lines are written
 * in batches of whole lines by one `write` each to a file opened with
 * `O_APPEND` (so writers in other processes interleave lines, never overwrite
 * them), off the call path: after `flushIntervalMs`, at `highWaterMark`, on
 * {@link CallJournal.flush}, {@link CallJournal.close}, at exit and on SIGINT /
 * SIGTERM. A line counts in `lines` only once all its bytes are written. When a
 * write fails (a full disk, a closed pipe), nothing later is written before it:
 * its lines stay first in the queue and are retried (50 ms, doubling to 5 s);
 * lines that cannot be kept (the queue is full, or `close` / exit could not
 * write them) are counted in `dropped` and told in one warning. `-` journals to
 * stdout. One journal per file per process: a second on the same file throws
 * (share the first, e.g. with `forEndpoint`).
 */
export class CallJournal implements CallObserver {
  /** The file's path (`-` for stdout). */
  readonly path: string;
  readonly #endpointJson: string;
  readonly #hasEndpoint: boolean;
  readonly #annotate: CallJournalOptions['annotate'];
  readonly #maxAnnotationBytes: number;
  readonly #highWaterMark: number;
  readonly #flushIntervalMs: number;
  readonly #maxQueuedBytes: number;
  readonly #exitHooks: boolean;
  readonly #onError: (error: unknown) => void;
  readonly #warn: ((message: string) => void) | undefined;
  #target: JournalTarget | null;
  #queue: string[] = [];
  #queueHead = 0;
  #queuedBytes = 0;
  #batch: Batch | null = null;
  #timer: NodeJS.Timeout | null = null;
  #retryMs = 0;
  #lines = 0;
  #dropped = 0;
  #annotationFailures = 0;
  // The number of the last line given (written, queued or dropped): each line's `seq`.
  #seq = 0;
  #firstError: unknown = null;
  #prefix: string;

  /** Opens (or creates) the file for appending; a torn last line is closed off with a newline first. */
  constructor(path: string, options: CallJournalOptions = {}) {
    if (typeof path !== 'string' || path === '') throw new TypeError('path must be a non-empty file path');
    this.path = path;
    this.#endpointJson = JSON.stringify(journalEndpoint(options.endpoint));
    this.#hasEndpoint = options.endpoint !== undefined && options.endpoint !== null;
    this.#annotate = options.annotate;
    this.#maxAnnotationBytes = positive(options.maxAnnotationBytes, 'maxAnnotationBytes') ?? 64 * 1024;
    this.#highWaterMark = positive(options.highWaterMark, 'highWaterMark') ?? 64 * 1024;
    this.#flushIntervalMs = positive(options.flushIntervalMs, 'flushIntervalMs') ?? 50;
    this.#maxQueuedBytes = positive(options.maxQueuedBytes, 'maxQueuedBytes') ?? 16 * 1024 * 1024;
    this.#exitHooks = options.exitHooks !== false;
    this.#onError = options.onError ?? (() => {});
    this.#warn = options.warn;
    const target = openJournalTarget(path);
    if (openTargets.has(target.key)) {
      target.close();
      throw new Error(
        `a CallJournal is already open on ${path === STDOUT_PATH ? 'stdout' : JSON.stringify(path)} in this process: share it (journal.forEndpoint gives it another endpoint) or close it first`,
      );
    }
    openTargets.set(target.key, path);
    this.#target = target;
    // A crashed writer's torn last line is closed off by the first line written.
    this.#prefix = target.endsTorn ? '\n' : '';
    if (this.#exitHooks) registerExitFlush(this);
  }

  /** Lines written: every byte of them is in the file. */
  get lines(): number {
    return this.#lines;
  }

  /** Lines given to the journal that will never be written (a full queue, a failure at close or exit, or after close). */
  get dropped(): number {
    return this.#dropped;
  }

  /** Lines queued or being retried, not yet written. */
  get pending(): number {
    const batchLines = this.#batch === null ? 0 : this.#batch.lineEnds.length - this.#batch.linesDone;
    return this.#queue.length - this.#queueHead + batchLines;
  }

  /** Annotations lost (`annotate` threw, gave what JSON cannot hold, or too much); their lines were written. */
  get annotationFailures(): number {
    return this.#annotationFailures;
  }

  /** Queues one line for the raw call. Never throws. */
  afterCall(record: TelemetryRecord): void {
    this.#append(record, this.#endpointJson);
  }

  /** An observer writing into this journal with another endpoint record. */
  forEndpoint(endpoint: EndpointInfo | null): CallObserver {
    const endpointJson = JSON.stringify(journalEndpoint(endpoint));
    return { afterCall: (record) => this.#append(record, endpointJson) };
  }

  /**
   * What `resolveChatEndpoint` attaches: this journal when it was given an endpoint,
   * else a writer into it with the resolved endpoint (so no line says `endpoint: null`).
   */
  withEndpoint(endpoint: EndpointInfo): CallObserver {
    return this.#hasEndpoint ? this : this.forEndpoint(endpoint);
  }

  /** Writes every queued line now; what a failed write leaves stays queued for its retry. */
  flush(): Promise<void> {
    this.#drain();
    return Promise.resolve();
  }

  /** Writes every queued line now, synchronously (for exit handlers). */
  flushSync(): void {
    this.#drain();
  }

  /**
   * Writes what is queued (one last try) and closes the file. Resolves to
   * `dropped`: the lines that were never written, over the journal's whole life
   * (0 when every line given is in the file); it never rejects for a failed
   * write. Later records are dropped and counted.
   */
  async close(): Promise<number> {
    this.#closeSync(false);
    return this.#dropped;
  }

  /** The exit hook's end: a last synchronous try, then what is left is dropped, and said on stderr. */
  closeAtExit(): void {
    this.#closeSync(true);
  }

  #closeSync(atExit: boolean): void {
    const target = this.#target;
    if (target === null) return;
    this.#drain();
    this.#clearTimer();
    const left = this.pending;
    this.#dropped += left;
    this.#batch = null;
    this.#queue = [];
    this.#queueHead = 0;
    this.#queuedBytes = 0;
    this.#target = null;
    openTargets.delete(target.key);
    if (this.#exitHooks) unregisterExitFlush(this);
    try {
      target.close();
    } catch (error) {
      this.#onError(error);
    }
    if (this.#dropped > 0) this.#say(this.#droppedMessage(), atExit);
  }

  #droppedMessage(): string {
    const error = this.#firstError === null ? '' : ` (first failed write: ${errorText(this.#firstError)})`;
    return `journal ${this.path}: ${this.#dropped} ${this.#dropped === 1 ? 'line was' : 'lines were'} not written and ${this.#dropped === 1 ? 'is' : 'are'} missing from it${error}; ${this.#lines} written`;
  }

  #append(record: TelemetryRecord, endpointJson: string): void {
    if (this.#target === null) {
      this.#dropped += 1;
      return;
    }
    // Numbered in the order lines are queued, which is the order they are written; a line dropped
    // for a full queue keeps its number, so the gap it leaves is one `report --verify` finds.
    this.#seq += 1;
    // Never throws: whatever the record holds, the line is one the reader takes (see journalLineText).
    const text = `${this.#prefix}${journalLineText(record, endpointJson, this.#annotation(record), this.#seq)}\n`;
    this.#prefix = '';
    this.#enqueue(text);
  }

  #annotation(record: TelemetryRecord): { readonly json?: string; readonly error?: string } | undefined {
    if (this.#annotate === undefined) return undefined;
    const annotation = annotationJson(() => this.#annotate?.(record), this.#maxAnnotationBytes);
    if (annotation?.error !== undefined) {
      this.#annotationFailures += 1;
      if (this.#annotationFailures === 1)
        this.#say(
          `journal ${this.path}: an annotation was left out (${annotation.error}); the call's line is written without it (further failures are counted, not warned)`,
          false,
        );
    }
    return annotation;
  }

  #enqueue(text: string): void {
    const bytes = Buffer.byteLength(text);
    if (this.#queuedBytes + bytes > this.#maxQueuedBytes) {
      this.#dropped += 1;
      return;
    }
    this.#queue.push(text);
    this.#queuedBytes += bytes;
    if (this.#retryMs > 0) return; // a retry is already scheduled
    if (this.#queuedBytes >= this.#highWaterMark) this.#schedule(0);
    else this.#schedule(this.#flushIntervalMs);
  }

  #schedule(delayMs: number): void {
    if (this.#timer !== null) {
      if (delayMs > 0) return;
      clearTimeout(this.#timer);
    }
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#drain();
    }, delayMs);
    // The timer alone must not keep the process alive; beforeExit and exit write what is left.
    this.#timer.unref();
  }

  #clearTimer(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }

  // Writes batches until the queue is empty or a write fails; never throws.
  #drain(): void {
    const target = this.#target;
    if (target === null) return;
    this.#clearTimer();
    for (;;) {
      const batch = this.#batch ?? this.#nextBatch();
      if (batch === null) break;
      try {
        batch.written += target.write(batch.bytes, batch.written);
      } catch (error) {
        this.#failed(error);
        return;
      }
      this.#countWritten(batch);
      if (batch.written >= batch.bytes.length) this.#batch = null;
    }
    this.#retryMs = 0;
  }

  #failed(error: unknown): void {
    if (this.#firstError === null) this.#firstError = error;
    this.#onError(error);
    // No later line is written before this one: the next try is of the same batch, after a pause.
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    this.#retryMs =
      code === 'EAGAIN'
        ? RETRY_FIRST_MS
        : Math.min(RETRY_MOST_MS, Math.max(RETRY_FIRST_MS, this.#retryMs * 2));
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#drain();
    }, this.#retryMs);
    this.#timer.unref();
  }

  #countWritten(batch: Batch): void {
    while (
      batch.linesDone < batch.lineEnds.length &&
      (batch.lineEnds[batch.linesDone] ?? 0) <= batch.written
    ) {
      batch.linesDone += 1;
      this.#lines += 1;
    }
  }

  #nextBatch(): Batch | null {
    if (this.#queueHead >= this.#queue.length) return null;
    const texts: string[] = [];
    const lineEnds: number[] = [];
    let size = 0;
    while (this.#queueHead < this.#queue.length && (size === 0 || size < this.#highWaterMark)) {
      const text = this.#queue[this.#queueHead] as string;
      this.#queueHead += 1;
      texts.push(text);
      size += Buffer.byteLength(text);
      lineEnds.push(size);
    }
    this.#queuedBytes -= size;
    if (this.#queueHead === this.#queue.length) {
      this.#queue = [];
      this.#queueHead = 0;
    } else if (this.#queueHead > 4096) {
      this.#queue = this.#queue.slice(this.#queueHead);
      this.#queueHead = 0;
    }
    this.#batch = { bytes: Buffer.from(texts.join('')), lineEnds, written: 0, linesDone: 0 };
    return this.#batch;
  }

  #say(message: string, atExit: boolean): void {
    if (this.#warn !== undefined) this.#warn(message);
    else if (atExit) writeStderr(`Warning: ${message}\n`);
    else process.emitWarning(message, 'JournalWarning');
  }
}

function writeStderr(text: string): void {
  try {
    writeSync(2, text);
  } catch {
    // Nowhere left to say it.
  }
}

function errorText(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return code === undefined || message.includes(code) ? message : `${code}: ${message}`;
}

function positive(value: number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!(typeof value === 'number' && Number.isFinite(value) && value > 0))
    throw new RangeError(`options.${name} must be a positive number`);
  return value;
}
