import { ChatError } from './chat-error.js';
import { isRecord } from './read-field.js';
import { redact } from './redact.js';
import { type CallContext, describeCall } from './to-chat-error.js';

/**
 * The origin a reply came from when the fetch that sent the request followed a
 * redirect (`response.redirected`, or a `response.url` of another origin than the
 * request's); null when it did not. A caller's `fetch` may ignore the
 * `redirect: 'error'` it is given, or the client of `OpenAIClientTransport` may
 * follow redirects: the request then went to that origin unnoticed. Read by shape:
 * a reply without these fields (built in code, or the Node transport's) never counts.
 */
export function followedRedirect(response: unknown, requestUrl: string): string | null {
  try {
    if (!isRecord(response)) return null;
    const url = response.url;
    const redirected = response.redirected === true;
    // Neither field (the Node transport's reply, one built in code): no address parsed.
    if (!redirected && (typeof url !== 'string' || url === '')) return null;
    const from = new URL(requestUrl).origin;
    const to = typeof url === 'string' && url !== '' ? new URL(url).origin : null;
    if (to !== null && to !== from) return to;
    return redirected ? (to ?? from) : null;
  } catch {
    return null;
  }
}

/**
 * The failure of a reply whose request a redirect took to `origin`: a `bad_reply`, not
 * retried (the same address redirects again), naming the origin only (a path or query may
 * carry anything).
 */
export function redirectFollowed(context: CallContext, origin: string): ChatError {
  return new ChatError({
    kind: 'bad_reply',
    message: redact(
      `${describeCall(context)}: the fetch that sent the request followed a redirect to ${origin}, so the request went there too; its reply is refused, as every redirect is. Give a fetch that honours redirect: 'error' (as the transport asks), or the address the redirect points to as the base URL`,
      context.apiKey,
    ),
    retryable: false,
  });
}
