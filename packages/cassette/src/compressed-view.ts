import { constants, inflateRawSync } from 'node:zlib';
import { BASE64_VALUES, base64Runs, PrintableBytes, type View, ViewBuilder } from './view-builder.js';

/** What the decoders of one text may still decompress: bytes out, counted across the text's views. */
export interface InflateBudget {
  left: number;
}

/**
 * The most one text's compressed blobs may decompress to: 64 times its size (a
 * key or a JSON document compresses far less), at most 32 MiB (twice a whole
 * stream's cap), so the work stays linear in the text.
 */
export function inflateBudget(text: string): InflateBudget {
  return { left: Math.min(64 * text.length, 32 * 1024 * 1024) };
}

/** The fewest base64 characters a compressed key can take: a gzip member of 8 bytes is 28 bytes. */
const MIN_COMPRESSED_RUN = 24;

/**
 * Where the deflate data of a gzip member (`1f 8b 08`, its optional fields
 * skipped) or a zlib stream (`78 …`, a valid header check) starts in `bytes`
 * at `at`, or -1 when none starts there.
 */
function deflateStart(bytes: Uint8Array, at: number): number {
  const first = bytes[at] ?? 0;
  const second = bytes[at + 1] ?? 0;
  if (first === 0x1f && second === 0x8b && bytes[at + 2] === 0x08) {
    const flags = bytes[at + 3] ?? 0;
    let offset = at + 10;
    if (flags & 4) offset += 2 + ((bytes[offset] ?? 0) | ((bytes[offset + 1] ?? 0) << 8));
    if (flags & 8) offset = bytes.indexOf(0, offset) + 1 || bytes.length;
    if (flags & 16) offset = bytes.indexOf(0, offset) + 1 || bytes.length;
    if (flags & 2) offset += 2;
    return Math.min(offset, bytes.length);
  }
  const zlib = (first & 0x0f) === 8 && first >> 4 <= 7 && ((first << 8) | second) % 31 === 0;
  return zlib && at === 0 ? Math.min(at + ((second & 0x20) !== 0 ? 6 : 2), bytes.length) : -1;
}

/** The bytes of a base64 run, decoded from its first character (where an encoded blob starts). */
function decodeRun(text: string, run: Int32Array): Uint8Array {
  const bytes = new Uint8Array(Math.floor((run.length * 3) / 4));
  let bits = 0;
  let buffered = 0;
  let length = 0;
  for (const index of run) {
    bits = (bits << 6) | (BASE64_VALUES[text.charCodeAt(index)] as number);
    buffered += 6;
    if (buffered >= 8) {
      buffered -= 8;
      bytes[length] = (bits >> buffered) & 0xff;
      length += 1;
      bits &= (1 << buffered) - 1;
    }
  }
  return bytes.subarray(0, length);
}

/**
 * The members of a compressed blob, decompressed one after another (concatenated
 * gzip members read as one text, as `gunzip` reads them; data after the last
 * ignored; a cut stream gives what it holds), at most `limit` bytes: null when
 * nothing decompresses, `'too large'` past the limit.
 */
function inflateAll(bytes: Uint8Array, limit: number): Buffer[] | 'too large' | null {
  const parts: Buffer[] = [];
  let total = 0;
  for (let at = 0; at < bytes.length; ) {
    const start = deflateStart(bytes, at);
    if (start < 0) break;
    let result: { buffer: Buffer; engine: { bytesWritten: number } };
    try {
      result = inflateRawSync(bytes.subarray(start), {
        finishFlush: constants.Z_SYNC_FLUSH,
        maxOutputLength: Math.max(1, limit - total),
        info: true,
      }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') return 'too large';
      break;
    }
    parts.push(result.buffer);
    total += result.buffer.length;
    // A gzip member ends with 8 bytes of checksum and length; another member may follow.
    at = start + result.engine.bytesWritten + 8;
    if (result.engine.bytesWritten === 0) break;
  }
  return parts.length === 0 ? null : parts;
}

/**
 * Base64 runs that open a gzip or zlib stream (`H4sI…`, `eJ…`), decompressed:
 * their printable bytes as one view, each mapped to the whole run (a secret in
 * it removes the blob). A blob that would decompress past what `budget` has left
 * is not decompressed but named as a range nothing was seen in (a bomb can
 * neither hide a key nor take the memory).
 */
export function compressedDecode(view: View, budget: InflateBudget): View | null {
  const text = view.text;
  // The base64 runs the base64 view read, those long enough to hold a compressed key that open a stream.
  const runs = base64Runs(view).filter(
    (run) => run.length >= MIN_COMPRESSED_RUN && deflateStart(decodeRun(text, run.subarray(0, 4)), 0) >= 0,
  );
  if (runs.length === 0) return null;
  const out = new ViewBuilder(256);
  const bytes = new PrintableBytes(out);
  const opaque: Array<readonly [number, number]> = [];
  for (const run of runs) {
    const start = run[0] as number;
    const end = (run.at(-1) as number) + 1;
    const parts = inflateAll(decodeRun(text, run), budget.left);
    if (parts === 'too large') {
      opaque.push([start, end]);
      continue;
    }
    if (parts === null) continue;
    bytes.flush();
    for (const part of parts) {
      budget.left -= part.length;
      for (const byte of part) bytes.push(byte, start, end);
    }
  }
  bytes.flush();
  if (out.length === 0 && opaque.length === 0) return null;
  return out.build(view, 'gzip in base64', { opaque });
}
