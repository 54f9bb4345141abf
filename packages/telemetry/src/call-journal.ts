import {
  closeSync,
  constants as fsConstants,
  fstatSync,
  openSync,
  readSync,
  write,
  writeSync,
} from 'node:fs';
import type { CallObserver } from '@switchboard/adapter';
import { registerExitFlush, unregisterExitFlush } from './exit-flush.js';
import { journalEndpoint, journalLineText } from './journal-line.js';
import type { EndpointInfo, TelemetryRecord } from './telemetry-record.js';

/** Options of {@link CallJournal}. */
export interface CallJournalOptions {
  /** The endpoint the observed adapter calls (provider, baseUrl, thinking); other fields are not kept. */
  readonly endpoint?: EndpointInfo | null;
  /**
   * The only way anything beyond the record goes into a line (e.g. message
   * content, when the code wants it): what it returns is kept under `extra`.
   */
  readonly annotate?: (record: TelemetryRecord) => Record<string, unknown> | undefined;
  /** Buffered bytes that start a write at once; default 64 KiB. */
  readonly highWaterMark?: number;
  /** Longest a line waits in the buffer, in ms; default 50. */
  readonly flushIntervalMs?: number;
  /** Flush on exit, beforeExit, SIGINT and SIGTERM; default true. */
  readonly exitHooks?: boolean;
  /** Told when a write fails (default: one process warning); later lines are still tried. */
  readonly onError?: (error: unknown) => void;
}

interface PendingWrite {
  readonly bytes: Buffer;
  readonly position: number;
}

/**
 * An append-only JSONL journal, a `CallObserver`: one line per raw call. The call
 * path only serializes and buffers the line; writes happen asynchronously in
 * batches, and everything buffered is written by {@link CallJournal.close}, at
 * exit and on SIGINT / SIGTERM (after which the signal ends the process as it
 * would have). One writer per file: the journal writes at offsets it tracks.
 */
export class CallJournal implements CallObserver {
  /** The file's path. */
  readonly path: string;
  readonly #endpointJson: string;
  readonly #hasEndpoint: boolean;
  readonly #annotate: CallJournalOptions['annotate'];
  readonly #highWaterMark: number;
  readonly #flushIntervalMs: number;
  readonly #exitHooks: boolean;
  readonly #onError: (error: unknown) => void;
  #fd: number | null;
  #position: number;
  #pending: string[] = [];
  #pendingBytes = 0;
  #inFlight: PendingWrite | null = null;
  #timer: NodeJS.Timeout | null = null;
  #waiters: Array<() => void> = [];
  #lines = 0;
  #dropped = 0;

  /** Opens (or creates) the file for appending; a torn last line is closed off with a newline first. */
  constructor(path: string, options: CallJournalOptions = {}) {
    if (typeof path !== 'string' || path === '') throw new TypeError('path must be a non-empty file path');
    this.path = path;
    this.#endpointJson = JSON.stringify(journalEndpoint(options.endpoint));
    this.#hasEndpoint = options.endpoint !== undefined && options.endpoint !== null;
    this.#annotate = options.annotate;
    this.#highWaterMark = positive(options.highWaterMark, 'highWaterMark') ?? 64 * 1024;
    this.#flushIntervalMs = positive(options.flushIntervalMs, 'flushIntervalMs') ?? 50;
    this.#exitHooks = options.exitHooks !== false;
    let warned = false;
    this.#onError =
      options.onError ??
      ((error) => {
        if (warned) return;
        warned = true;
        process.emitWarning(`journal ${path}: a write failed: ${String(error)}`, 'JournalWarning');
      });
    this.#fd = openSync(path, fsConstants.O_WRONLY | fsConstants.O_CREAT);
    this.#position = fstatSync(this.#fd).size;
    if (this.#position > 0 && !endsWithNewline(path, this.#position)) this.#queue('\n');
    if (this.#exitHooks) registerExitFlush(this);
  }

  /** Lines accepted so far. */
  get lines(): number {
    return this.#lines;
  }

  /** Records given after {@link CallJournal.close}, which were not written. */
  get dropped(): number {
    return this.#dropped;
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

  /** Resolves once every line queued so far is written. */
  flush(): Promise<void> {
    if (this.#pending.length === 0 && this.#inFlight === null) return Promise.resolve();
    return new Promise((resolve) => {
      this.#waiters.push(resolve);
      if (this.#inFlight === null) this.#startWrite();
    });
  }

  /** Writes every queued line now, synchronously (for exit handlers). */
  flushSync(): void {
    if (this.#fd === null) return;
    try {
      // An unfinished asynchronous write is written again at the same offset: same bytes, same place.
      const inFlight = this.#inFlight;
      if (inFlight !== null) writeFully(this.#fd, inFlight.bytes, inFlight.position);
      this.#inFlight = null;
      if (this.#pending.length > 0) {
        const bytes = this.#take();
        writeFully(this.#fd, bytes, this.#position);
        this.#position += bytes.length;
      }
    } catch (error) {
      this.#onError(error);
    }
    this.#settleWaiters();
  }

  /** Writes what is queued and closes the file; later records are dropped (counted in `dropped`). */
  async close(): Promise<void> {
    if (this.#fd === null) return;
    await this.flush();
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#exitHooks) unregisterExitFlush(this);
    const fd = this.#fd;
    this.#fd = null;
    closeSync(fd);
  }

  #append(record: TelemetryRecord, endpointJson: string): void {
    if (this.#fd === null) {
      this.#dropped += 1;
      return;
    }
    try {
      const extra = this.#annotate?.(record);
      this.#queue(`${journalLineText(record, endpointJson, extra)}\n`);
      this.#lines += 1;
    } catch (error) {
      this.#onError(error);
    }
  }

  #queue(text: string): void {
    this.#pending.push(text);
    // Byte length is only needed to decide when to write: string length is close enough.
    this.#pendingBytes += text.length;
    if (this.#inFlight !== null) return;
    if (this.#pendingBytes >= this.#highWaterMark) this.#startWrite();
    else this.#armTimer();
  }

  #armTimer(): void {
    if (this.#timer !== null) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      if (this.#inFlight === null) this.#startWrite();
    }, this.#flushIntervalMs);
    // The timer alone must not keep the process alive; beforeExit writes what is left.
    this.#timer.unref();
  }

  #take(): Buffer {
    const bytes = Buffer.from(this.#pending.join(''));
    this.#pending = [];
    this.#pendingBytes = 0;
    return bytes;
  }

  #startWrite(): void {
    if (this.#fd === null || this.#pending.length === 0) {
      this.#settleWaiters();
      return;
    }
    const bytes = this.#take();
    const pendingWrite: PendingWrite = { bytes, position: this.#position };
    this.#position += bytes.length;
    this.#inFlight = pendingWrite;
    this.#writeFrom(this.#fd, pendingWrite, 0);
  }

  #writeFrom(fd: number, pendingWrite: PendingWrite, offset: number): void {
    const { bytes, position } = pendingWrite;
    write(fd, bytes, offset, bytes.length - offset, position + offset, (error, written) => {
      // flushSync may have taken over this write meanwhile.
      if (this.#inFlight !== pendingWrite) return;
      if (error) this.#onError(error);
      else if (offset + written < bytes.length) {
        this.#writeFrom(fd, pendingWrite, offset + written);
        return;
      }
      this.#inFlight = null;
      if (this.#pending.length > 0 && (this.#waiters.length > 0 || this.#pendingBytes >= this.#highWaterMark))
        this.#startWrite();
      else if (this.#pending.length > 0) this.#armTimer();
      else this.#settleWaiters();
    });
  }

  #settleWaiters(): void {
    if (this.#inFlight !== null || this.#pending.length > 0) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const resolve of waiters) resolve();
  }
}

function writeFully(fd: number, bytes: Buffer, position: number): void {
  let offset = 0;
  while (offset < bytes.length)
    offset += writeSync(fd, bytes, offset, bytes.length - offset, position + offset);
}

function endsWithNewline(path: string, size: number): boolean {
  const fd = openSync(path, 'r');
  try {
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] === 0x0a;
  } finally {
    closeSync(fd);
  }
}

function positive(value: number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!(typeof value === 'number' && Number.isFinite(value) && value > 0))
    throw new RangeError(`options.${name} must be a positive number`);
  return value;
}
