import { VERSION } from 'openai/version';
import type { CallAttempt } from './call-attempt.js';

const USER_AGENT = `OpenAI/JS ${VERSION}`;

// HTTP's whitespace at either end of a value (RFC 9110 5.5), what fetch strips.
const EDGE_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;

/**
 * The headers of one attempt's request, built from the call alone (nothing from the
 * environment reaches the wire), as the `openai` SDK names them: `accept`, its
 * `user-agent`, the retry count and timeout it reports, `content-type` with a body,
 * and the key as a bearer token unless it is `''`. A plain record: every transport
 * sends these and adds only what its client would add itself. Values are normalised
 * as fetch's `Headers` normalise them (leading and trailing tabs, newlines and spaces
 * dropped: a key read from a file keeps its newline), so every transport sends the same.
 */
export function requestHeaders(attempt: CallAttempt, hasBody: boolean): Record<string, string> {
  const { context } = attempt;
  const headers: Record<string, string> = {
    accept: 'application/json',
    'user-agent': USER_AGENT,
    'x-stainless-retry-count': String(attempt.number - 1),
    'x-stainless-timeout': String(Math.trunc(context.timeoutMs / 1000)),
  };
  if (hasBody) headers['content-type'] = 'application/json';
  if (context.apiKey !== '') headers.authorization = authorizationOf(context.apiKey);
  return headers;
}

// The last key's header: a process calls with one key, or a few, so it is built once, not per call.
let lastKey = '';
let lastAuthorization = '';

function authorizationOf(apiKey: string): string {
  if (apiKey !== lastKey) {
    lastAuthorization = `Bearer ${apiKey}`.replace(EDGE_WHITESPACE, '');
    lastKey = apiKey;
  }
  return lastAuthorization;
}
