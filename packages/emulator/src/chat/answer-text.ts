import { BoundedMemo } from '../tokens/bounded-memo.js';
import { countTokens, truncateToTokens } from '../tokens/tokenize.js';
import { messageText } from './message-text.js';
import { hashText, seededRandom } from './seeded-random.js';

// The vocabulary of filler sentences.
const WORDS = [
  'the service returns a result for this request with each value checked against stored ',
  'record and then reported back as plain text every step follows from input given so answer ',
  'stays short clear list of items is kept in order while notes explain why',
]
  .join('')
  .split(' ');

/** The words of `text`: runs of letters, digits and underscores, punctuation dropped. */
export function wordsOf(text: string): string[] {
  return text.match(/[\p{L}\p{N}_]+/gu) ?? [];
}

/** Up to `count` words of `text`, joined by spaces ('(nothing)' when there are none). */
function snippet(text: string, count: number): string {
  const words = wordsOf(text);
  return words.length === 0 ? '(nothing)' : words.slice(0, count).join(' ');
}

/**
 * Sentences of filler words drawn by a generator seeded with `seed`, appended
 * to `start` until the text holds at least `tokens` tokens, then cut to exactly
 * that many (never shorter than `start` itself).
 */
function fillToTokens(start: string, seed: string, tokens: number): string {
  // A pure function of its arguments: a repeated request (thinking off, temperature 0) reads it back.
  // A huge request (its seed holds the messages) is not kept: 64 of them could hold a lot of memory.
  if (seed.length > MAX_REMEMBERED_SEED) return fill(start, seed, tokens);
  return filled.get(`${tokens}\u0000${seed}\u0000${start}`, () => fill(start, seed, tokens));
}

const filled = new BoundedMemo<string>(64);
const MAX_REMEMBERED_SEED = 64 * 1024;

function fill(start: string, seed: string, tokens: number): string {
  const random = seededRandom(seed);
  const parts = [start];
  let count = countTokens(start);
  while (count < tokens) {
    const length = 5 + Math.floor(random() * 6);
    const words = Array.from({ length }, () => WORDS[Math.floor(random() * WORDS.length)] ?? 'the');
    const sentence = `${words.join(' ')}.`;
    parts.push(sentence.charAt(0).toUpperCase() + sentence.slice(1));
    count += length + 1;
  }
  return truncateToTokens(parts.join(' '), Math.max(tokens, countTokens(start)));
}

/** The last message whose role is `user`, or undefined. */
export function lastUserMessage(
  messages: readonly Readonly<Record<string, unknown>>[],
): Readonly<Record<string, unknown>> | undefined {
  return messages.findLast((message) => message.role === 'user');
}

/**
 * The answer's text: after a tool result, `Tool result from <name>: <words of
 * the result>.`; otherwise `Answer to: <first words of the last user
 * message>.`; then `(ref <hash of seed>)` and filler up to `tokens` tokens
 * (default: about half the last message's tokens plus 12, from 16 to 160).
 */
export function answerText(
  messages: readonly Readonly<Record<string, unknown>>[],
  seed: string,
  tokens: number | null,
): string {
  const last = messages.at(-1);
  let start: string;
  let source: string;
  if (last?.role === 'tool') {
    source = messageText(last.content);
    start = `Tool result from ${toolNameOf(messages, last.tool_call_id)}: ${snippet(source, 16)}.`;
  } else {
    source = messageText(lastUserMessage(messages)?.content);
    start = `Answer to: ${snippet(source, 12)}.`;
  }
  const target = tokens ?? Math.min(160, Math.max(16, 12 + Math.floor(countTokens(source) / 2)));
  return fillToTokens(`${start} (ref ${hashText(seed)})`, seed, target);
}

/** The model's reasoning text while thinking: never empty. */
export function reasoningText(messages: readonly Readonly<Record<string, unknown>>[], seed: string): string {
  const question = snippet(messageText(lastUserMessage(messages)?.content), 8);
  return fillToTokens(`Thinking about: ${question} (pass ${hashText(`reasoning ${seed}`)}).`, seed, 24);
}

function toolNameOf(messages: readonly Readonly<Record<string, unknown>>[], callId: unknown): string {
  for (const message of messages) {
    if (message.role !== 'assistant' || !Array.isArray(message.tool_calls)) continue;
    for (const call of message.tool_calls as ({ id?: unknown; function?: { name?: unknown } } | null)[]) {
      if (call !== null && call.id === callId && typeof call.function?.name === 'string') {
        return call.function.name;
      }
    }
  }
  return 'a tool';
}
