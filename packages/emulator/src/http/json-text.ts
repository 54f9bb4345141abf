import { randomUUID } from 'node:crypto';
import { BoundedMemo } from '../tokens/bounded-memo.js';

/** Strings at least this long are encoded once and remembered: a long answer repeats reply after reply. */
const LONG = 4_096;
/** The long strings' encodings remembered (a repeated answer is the same string each time; see answer-text.ts). */
const encoded = new BoundedMemo<string>(16);

/**
 * `JSON.stringify(value)`, the same text, with each string of `long` characters or more encoded
 * once and read back after: a 50 KB answer repeated reply after reply (`answerTokens`, the benchmarks'
 * large replies) is not escaped again each time. On Node 20 and 22 that escaping was about 160 µs of
 * the emulator's 400 µs a 55 KB reply (V8's own `JSON.stringify`, 35 µs on Node 24), which made the
 * emulator, not the client, the slowest part of a benchmark of 32 calls in flight.
 *
 * Each long string leaves a placeholder in the text (a per-process random marker no other string
 * holds in practice), replaced by the string's remembered encoding after.
 */
export function jsonText(value: unknown, long = LONG): string {
  let strings: string[] | null = null;
  const text = JSON.stringify(value, (_key, item: unknown) => {
    if (typeof item !== 'string' || item.length < long) return item;
    if (strings === null) strings = [];
    strings.push(item);
    return PLACEHOLDER;
  });
  if (strings === null) return text;
  const found = strings;
  let next = 0;
  return text.replaceAll(PLACEHOLDER_JSON, () => {
    const string = found[next++] as string;
    return string.length > MAX_REMEMBERED
      ? JSON.stringify(string)
      : encoded.get(string, () => JSON.stringify(string));
  });
}

/** Longest string whose encoding is remembered: 16 of them hold at most about 32 MiB. */
const MAX_REMEMBERED = 1024 * 1024;
const PLACEHOLDER = `\u0000${randomUUID()}\u0000`;
const PLACEHOLDER_JSON = JSON.stringify(PLACEHOLDER);
