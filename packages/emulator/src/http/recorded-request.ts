import type { IncomingHttpHeaders } from 'node:http';

/** One request the emulator received, as recorded in `Emulator.requests`. */
export interface RecordedRequest {
  /** 1-based position among every request received since start (or the last `reset()`). */
  readonly number: number;
  /** The HTTP method, e.g. `POST`. */
  readonly method: string;
  /** The request target as sent, query string included, e.g. `/chat/completions`. */
  readonly path: string;
  /** The request headers with lowercase names; credentials are redacted. */
  readonly headers: Readonly<Record<string, string | string[]>>;
  /** The parsed JSON body, or null when the body was empty or not JSON. */
  readonly body: unknown;
}

const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'api-key', 'x-api-key']);

/**
 * A copy of `headers` safe to keep and print: an `Authorization` value becomes
 * `Bearer [redacted]` (the scheme kept), other credential headers `[redacted]`.
 */
export function redactHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const copy: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    copy[name] = CREDENTIAL_HEADERS.has(name) ? redactCredential(value) : value;
  }
  return copy;
}

function redactCredential(value: string | string[]): string {
  const first = Array.isArray(value) ? (value[0] ?? '') : value;
  const scheme = /^(\w+)\s/.exec(first)?.[1];
  return scheme === undefined ? '[redacted]' : `${scheme} [redacted]`;
}
