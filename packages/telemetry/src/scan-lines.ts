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
 * Reads `source` line by line and calls `onLine` for each, streaming: memory
 * stays within `maxLineBytes` plus one read whatever the input (a line longer
 * than the cap is counted, never held whole; a device or FIFO without end is
 * read without end). `onLine` may return a promise to pause the reading.
 */
export async function scanLines(
  source: JournalSource,
  maxLineBytes: number,
  onLine: (line: ScannedLine) => void | Promise<void>,
): Promise<void> {
  const input = typeof source === 'string' ? openSource(source) : source;
  let parts: Buffer[] = [];
  let bytes = 0;
  let number = 0;
  for await (const data of input) {
    const chunk =
      typeof data === 'string'
        ? Buffer.from(data)
        : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline;
      if (bytes + (end - start) <= maxLineBytes) {
        // Copied: a kept part must not pin the whole read buffer.
        if (end > start)
          parts.push(newline === -1 ? Buffer.from(chunk.subarray(start, end)) : chunk.subarray(start, end));
      } else parts = [];
      bytes += end - start;
      if (newline === -1) break;
      number += 1;
      const text = bytes <= maxLineBytes ? textOf(parts) : null;
      parts = [];
      const pause = onLine({ number, text, bytes, last: false });
      bytes = 0;
      if (pause !== undefined) await pause;
      start = newline + 1;
    }
  }
  if (bytes > 0) {
    number += 1;
    const pause = onLine({ number, text: bytes <= maxLineBytes ? textOf(parts) : null, bytes, last: true });
    if (pause !== undefined) await pause;
  }
}

function textOf(parts: Buffer[]): string {
  if (parts.length === 1) return (parts[0] as Buffer).toString('utf8');
  return Buffer.concat(parts).toString('utf8');
}

function openSource(path: string): AsyncIterable<Buffer> {
  if (path === '-') return process.stdin;
  return createReadStream(path, { highWaterMark: 256 * 1024 });
}
