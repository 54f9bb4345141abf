import { BAD_INPUT_EXIT_CODE, CliError } from './cli-error.js';
import { type ListedModel, listedModelsOf } from './prices-check-entries.js';

/** The bounds a listing is read within: a hostile or broken gateway gets no more. */
export interface ListingLimits {
  /** Body bytes, counted after `fetch` undid any content encoding (a small gzip body can decode to gigabytes). */
  readonly maxBytes: number;
  /** Nesting of arrays and objects. */
  readonly maxDepth: number;
  /** Entries of `data`. */
  readonly maxEntries: number;
  /** The whole read, headers and body. */
  readonly timeoutMs: number;
}

const LISTING_LIMITS: ListingLimits = Object.freeze({
  maxBytes: 16 * 1024 * 1024,
  maxDepth: 32,
  maxEntries: 20_000,
  timeoutMs: 30_000,
});

/** The listing's address as messages and tables show it: no credentials, no query. */
export function shownUrl(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

/**
 * Reads the gateway's `GET <base>/models` within `limits`: a redirect is refused (the key
 * would follow it to another origin), as are an error status, a body past `maxBytes` after
 * decoding, nesting past `maxDepth`, more than `maxEntries` entries, and anything but
 * `{ data: [...] }`. The key, when given, goes only in the `authorization` header and is
 * never printed. Every failure is a CliError with exit code 2, naming the address.
 */
export async function readListing(
  url: URL,
  apiKey: string | undefined,
  limits: ListingLimits = LISTING_LIMITS,
): Promise<ListedModel[]> {
  const where = shownUrl(url);
  const fail = (why: string) =>
    new CliError(`cannot read the listing at ${where}: ${why}`, BAD_INPUT_EXIT_CODE);
  const signal = AbortSignal.timeout(limits.timeoutMs);
  let text: string;
  try {
    const response = await fetch(url, {
      headers: { accept: 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
      redirect: 'manual',
      signal,
    });
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      throw fail(
        `it answered ${response.status}, a redirect, which is refused (give the address it points to)`,
      );
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw fail(
        `it answered ${response.status}${response.status === 401 || response.status === 403 ? ' (set GATEWAY_API_KEY?)' : ''}`,
      );
    }
    text = await boundedText(response, limits.maxBytes, fail);
  } catch (error) {
    if (error instanceof CliError) throw error;
    if (signal.aborted) throw fail(`no whole reply within ${limits.timeoutMs / 1000} s`);
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    throw fail(`${(error as Error).message}${cause ? ` (${cause})` : ''}`);
  }
  let body: unknown;
  try {
    // JSON.parse reads nesting without recursion; the depth is checked on what it built.
    body = JSON.parse(text);
  } catch {
    throw fail(`it is not JSON (${text.length} characters)`);
  }
  if (nestsDeeper(body, limits.maxDepth)) throw fail(`its JSON nests deeper than ${limits.maxDepth} levels`);
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) throw fail('expected an object with a "data" array of models');
  if (data.length > limits.maxEntries)
    throw fail(`it lists ${data.length} models, more than ${limits.maxEntries}`);
  return listedModelsOf(data);
}

async function boundedText(
  response: Response,
  maxBytes: number,
  fail: (why: string) => CliError,
): Promise<string> {
  const reader = response.body?.getReader();
  if (reader === undefined) return '';
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const chunk = await reader.read();
    if (chunk.done) return Buffer.concat(chunks, length).toString('utf8');
    length += chunk.value.byteLength;
    if (length > maxBytes) {
      await reader.cancel();
      throw fail(`its body passed ${maxBytes} bytes (counted after decoding); reading stopped there`);
    }
    chunks.push(chunk.value);
  }
}

/**
 * Whether a parsed value nests arrays and objects deeper than `limit`: walked with a stack
 * of its own, never by recursion, and stopped at the first value past the limit.
 */
function nestsDeeper(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, depth] = next;
    if (item === null || typeof item !== 'object') continue;
    if (depth + 1 > limit) return true;
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return false;
}
