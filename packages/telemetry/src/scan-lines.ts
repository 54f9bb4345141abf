import { createReadStream } from 'node:fs';

/** What a journal is read from: a path (`-` for stdin) or a stream of bytes. */
export type JournalSource = string | AsyncIterable<Uint8Array | string>;

/** One line as {@link scanLines} hands it over. */
export interface ScannedLine {
  /** 1-based line number. */
  readonly number: number;
  /** The line's text (without its newline), or null when it was longer than the cap. */
  readonly text: string | null;
  /** The line's length in bytes (also for a line over the cap). */
  readonly bytes: number;
  /** Whether this is a last line with no newline after it. */
  readonly last: boolean;
}

/**
 * Splits bytes into lines, chunk by chunk, holding at most `maxLineBytes` of a
 * line: a longer one is counted, never held whole.
 */
export class LineSplitter {
  readonly #maxLineBytes: number;
  readonly #onLine: (line: ScannedLine) => void;
  #parts: Buffer[] = [];
  #bytes = 0;
  #number = 0;

  constructor(maxLineBytes: number, onLine: (line: ScannedLine) => void) {
    this.#maxLineBytes = maxLineBytes;
    this.#onLine = onLine;
  }

  /** Splits one chunk, telling each line it ends. */
  push(data: Uint8Array | string): void {
    const chunk =
      typeof data === 'string'
        ? Buffer.from(data)
        : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline;
      if (this.#bytes + (end - start) <= this.#maxLineBytes) {
        // A part kept past this chunk is copied: it must not pin the whole read buffer.
        if (end > start)
          this.#parts.push(
            newline === -1 ? Buffer.from(chunk.subarray(start, end)) : chunk.subarray(start, end),
          );
      } else this.#parts = [];
      this.#bytes += end - start;
      if (newline === -1) break;
      this.#emit(false);
      start = newline + 1;
    }
  }

  /** The input ended: tells a last line without a newline, if any. */
  end(): void {
    if (this.#bytes > 0) this.#emit(true);
  }

  #emit(last: boolean): void {
    this.#number += 1;
    const parts = this.#parts;
    const text =
      this.#bytes > this.#maxLineBytes
        ? null
        : parts.length === 1
          ? (parts[0] as Buffer).toString('utf8')
          : Buffer.concat(parts).toString('utf8');
    const bytes = this.#bytes;
    this.#parts = [];
    this.#bytes = 0;
    this.#onLine({ number: this.#number, text, bytes, last });
  }
}

/**
 * Reads `source` line by line and calls `onLine` for each, streaming: memory
 * stays within `maxLineBytes` plus one read whatever the input (a line longer
 * than the cap is counted, never held whole; a device or FIFO without end is
 * read without end).
 */
export async function scanLines(
  source: JournalSource,
  maxLineBytes: number,
  onLine: (line: ScannedLine) => void,
): Promise<void> {
  const splitter = new LineSplitter(maxLineBytes, onLine);
  for await (const data of openSource(source)) splitter.push(data);
  splitter.end();
}

/** The bytes of a source: the file at a path (`-`: stdin), or the stream itself. */
export function openSource(source: JournalSource): AsyncIterable<Uint8Array | string> {
  if (typeof source !== 'string') return source;
  if (source === '-') return process.stdin;
  return createReadStream(source, { highWaterMark: 256 * 1024 });
}
