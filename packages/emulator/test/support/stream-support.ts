import { GeneratedTokens } from '../../src/billing/generated-tokens.js';

/** One SSE block of a streamed body: its event name (if any) and its data (parsed JSON, `[DONE]`, or raw text). */
export interface SseBlock {
  readonly event: string | null;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON paths.
  readonly data: any;
}

/** The data blocks of an SSE body (comments dropped; text after the last blank line ignored). */
export function sseBlocks(text: string): SseBlock[] {
  const blocks = text.split('\n\n').slice(0, -1);
  const result: SseBlock[] = [];
  for (const block of blocks) {
    if (block.startsWith(':')) continue;
    const lines = block.split('\n');
    const event = lines.find((line) => line.startsWith('event: '))?.slice(7) ?? null;
    const raw = lines.find((line) => line.startsWith('data: '))?.slice(6) ?? '';
    let data: unknown = raw;
    try {
      data = raw === '[DONE]' ? raw : JSON.parse(raw);
    } catch {
      data = raw;
    }
    result.push({ event, data });
  }
  return result;
}

/** The completion tokens of the deltas in an SSE body, counted as the emulator counts them. */
export function tokensReceived(text: string): number {
  const tokens = new GeneratedTokens();
  for (const block of sseBlocks(text)) {
    if (block.data !== null && typeof block.data === 'object') tokens.add(block.data);
  }
  return tokens.completionTokens;
}

/**
 * POSTs a chat request with fetch, reads the body until it holds at least
 * `blocks` SSE blocks (or ends), then aborts: a client hanging up mid-stream.
 */
export async function readThenAbort(url: string, body: unknown, blocks: number): Promise<string> {
  const controller = new AbortController();
  const response = await fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: controller.signal,
  });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (text.split('\n\n').length - 1 < blocks) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  controller.abort();
  await reader.cancel().catch(() => undefined);
  return text;
}

/** POSTs a chat request with fetch and reads the body to its end or until it breaks; the text received. */
export async function readAll(url: string, body: unknown): Promise<{ text: string; broken: boolean }> {
  const response = await fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return { text, broken: false };
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    return { text, broken: true };
  }
}

/** The cost of `usage` by the shipped price table and the cost rule of `@switchboard/prices`, in nano-dollars. */
export async function shippedCost(model: string, usage: unknown): Promise<number> {
  // Loaded by name at run time (the test runner maps it to its source): the emulator declares no dependency on it.
  const name = '@switchboard/prices';
  const prices = await import(name);
  const usd = prices.costOf(prices.priceOf(model), usage) as number | null;
  return usd === null ? 0 : (prices.nanoUsdOf(usd) as number);
}
