import { BoundedMemo } from './bounded-memo.js';

/** Where one token sits in a text: `text.slice(start, end)` is the token. */
export interface TokenSpan {
  readonly start: number;
  readonly end: number;
}

// A run of up to 12 letters, digits or underscores is one token; every other
// non-space character is a token of its own; whitespace only separates.
const TOKEN_PATTERN = /[\p{L}\p{N}_]{1,12}|[^\s\p{L}\p{N}_]/gu;

/** The spans of the emulator's deterministic tokens in `text`, in order. */
export function tokenSpans(text: string): TokenSpan[] {
  const spans: TokenSpan[] = [];
  for (const match of text.matchAll(TOKEN_PATTERN)) {
    const start = match.index ?? 0;
    spans.push({ start, end: start + match[0].length });
  }
  return spans;
}

/**
 * Splits `text` with the emulator's simple deterministic tokenizer: each run of
 * up to 12 letters, digits or underscores is a token, each other non-space
 * character is a token, whitespace is dropped.
 */
export function tokenize(text: string): string[] {
  return tokenSpans(text).map((span) => text.slice(span.start, span.end));
}

/** The number of tokens in `text`, as the emulator counts them (see {@link tokenize}). */
export function countTokens(text: string): number {
  // A long text (a large answer) is counted once while it repeats; a short one costs less than the lookup.
  if (text.length < LONG_TEXT || text.length > HUGE_TEXT) return tokenSpans(text).length;
  return longCounts.get(text, () => tokenSpans(text).length);
}

/** From this length on, a text's count is remembered, up to the next (32 kept: at most 16 MiB held). */
const LONG_TEXT = 4096;
const HUGE_TEXT = 256 * 1024;
const longCounts = new BoundedMemo<number>(32);

/** The longest prefix of `text` holding at most `maxTokens` tokens (trailing whitespace dropped). */
export function truncateToTokens(text: string, maxTokens: number): string {
  const spans = tokenSpans(text);
  if (spans.length <= maxTokens) return text;
  if (maxTokens <= 0) return '';
  const last = spans[maxTokens - 1];
  return last === undefined ? '' : text.slice(0, last.end);
}
