import { isRecord } from './read-field.js';

// undici's fetch (Node's own) and node:http raise these when a reply's headers pass their limit.
const OVERFLOW_CODES = new Set(['UND_ERR_HEADERS_OVERFLOW', 'HPE_HEADER_OVERFLOW']);

/**
 * Whether `error` (or one of its first causes) is the HTTP client refusing a reply whose
 * headers passed its size limit (a 1 MiB header, 100,000 headers). Such a reply is the
 * server's answer, not a network failure: retrying only asks for it again. Read by shape
 * (the `code`), so an error of another realm or copy of undici counts too.
 */
export function isHeadersOverflow(error: unknown): boolean {
  let current = error;
  for (let depth = 0; depth < 5; depth += 1) {
    try {
      if (!isRecord(current) && typeof current !== 'function') return false;
      const code = (current as { code?: unknown }).code;
      if (typeof code === 'string' && OVERFLOW_CODES.has(code)) return true;
      current = (current as { cause?: unknown }).cause;
    } catch {
      return false;
    }
  }
  return false;
}

/** What a reply refused by {@link isHeadersOverflow} is reported as, after the call's `[POST] "<url>"`. */
export const HEADERS_OVERFLOW_MESSAGE =
  "the reply's headers passed the HTTP client's size limit (16 KiB in all by default: Node's --max-http-header-size); no provider sends headers that large, so the reply is refused and not retried";
