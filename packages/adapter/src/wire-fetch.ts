import type { CallAttempt } from './call-attempt.js';
import { ChatError } from './chat-error.js';
import { followedRedirect, redirectFollowed } from './followed-redirect.js';
import { overflowDetail, readBody } from './read-body.js';
import { isRecord } from './read-field.js';
import { redact } from './redact.js';
import { requestHeaders } from './request-headers.js';
import {
  type CallContext,
  connectionFailure,
  describeCall,
  providerDetail,
  statusFailure,
} from './to-chat-error.js';
import type { WireReply } from './wire-reply.js';

/** The most of an error body kept (and read, counted after decoding): 64 KiB, enough for any provider's explanation. */
export const MAX_ERROR_BYTES = 64 * 1024;

/**
 * Sends one attempt's request with `fetch`: the headers are the call's own
 * ({@link requestHeaders}: nothing from the environment reaches the wire),
 * redirects are refused (fetch's `redirect: 'error'`; a given `fetch` that
 * answers a 3xx anyway is refused by its status), and an error reply is read
 * ({@link checkedReply}), bounded in size and by the attempt's deadline, and typed by its status.
 * Resolves with a 2xx reply, its body unread.
 */
export async function wireFetch(
  send: typeof fetch | undefined,
  attempt: CallAttempt,
  url: string,
  method: 'GET' | 'POST',
  body: string | null,
): Promise<Response> {
  const { context } = attempt;
  // A plain record: fetch builds its own headers from it, so none are built twice.
  const headers = requestHeaders(attempt, body !== null);
  attempt.sent = true;
  let response: Response;
  try {
    // The attempt's own signal: its deadline and the caller's. `redirect: 'error'`, not 'manual':
    // fetch copies every request (its body teed) unless redirects are errors, ~80 µs of CPU a call.
    response = await (send ?? fetch)(url, {
      method,
      headers,
      body,
      signal: attempt.signal,
      redirect: 'error',
    });
  } catch (error) {
    // Ended by the attempt (its deadline, the caller): that failure; else the redirect or the network's.
    if (attempt.failure) throw attempt.failure;
    throw attempt.fail(
      isRefusedRedirect(error) ? redirectRefused(context) : connectionFailure(error, context),
    );
  }
  return checkedReply(response, attempt);
}

/**
 * A reply as an attempt takes it: a reply a followed redirect brought refused
 * ({@link followedRedirect}), its status and headers noted, a redirect refused,
 * an error status read (bounded) and thrown typed; a 2xx reply handed back unread.
 */
export async function checkedReply<Reply extends WireReply>(
  response: Reply,
  attempt: CallAttempt,
): Promise<Reply> {
  const { context } = attempt;
  const followedTo = followedRedirect(response, context.url);
  if (followedTo !== null) {
    response.body?.cancel().catch(() => {});
    throw attempt.fail(redirectFollowed(context, followedTo));
  }
  const { status } = response;
  attempt.headers = response.headers;
  attempt.status = status;
  if (status >= 300 && status < 400) {
    response.body?.cancel().catch(() => {});
    throw attempt.fail(
      new ChatError({
        kind: 'bad_reply',
        status,
        message: redact(
          `${describeCall(context, status)}: redirects are refused (to ${targetOrigin(response, context.url)})`,
          context.apiKey,
        ),
        retryable: false,
      }),
    );
  }
  if (status >= 200 && status < 300) return response;
  let detail: ReturnType<typeof providerDetail>;
  try {
    const body = await readBody(response, MAX_ERROR_BYTES, attempt);
    detail = body.overflowed
      ? plainDetail(errorBodyPassedCap(overflowDetail(body, response)))
      : providerDetail(parseOrUndefined(body.text), body.text);
  } catch {
    if (attempt.failure) throw attempt.failure;
    detail = plainDetail('the error body was cut off');
  }
  throw attempt.fail(statusFailure(context, status, response.headers, detail));
}

/** What an error body past {@link MAX_ERROR_BYTES} is reported as; `detail` says what passed it. */
export function errorBodyPassedCap(detail: string): string {
  return `the error body passed the ${MAX_ERROR_BYTES / 1024} KiB cap: ${detail}; the connection was dropped`;
}

/**
 * fetch's rejection for a redirect under `redirect: 'error'` (Node 20 to 24, and undici's own fetch: a
 * `TypeError` whose cause says "unexpected redirect"); read by shape, so an error of another realm counts too.
 */
function isRefusedRedirect(error: unknown): boolean {
  try {
    const cause = isRecord(error) ? error.cause : undefined;
    return isRecord(cause) && cause.message === 'unexpected redirect';
  } catch {
    return false;
  }
}

/**
 * A redirect fetch refused: its status and target are not kept by fetch, so the
 * message says what can be done. Not retried: the same address redirects again.
 */
function redirectRefused(context: CallContext): ChatError {
  return new ChatError({
    kind: 'bad_reply',
    message: redact(
      `${describeCall(context)}: the server answered with a redirect (301, 302, 303, 307 or 308); redirects are refused, so the request and its key never go to another address. If the provider moved, or an http:// address redirects to https://, give the address it points to as the base URL`,
      context.apiKey,
    ),
    retryable: false,
  });
}

function plainDetail(message: string): ReturnType<typeof providerDetail> {
  return { message, code: undefined, param: undefined };
}

/** JSON.parse is iterative in V8, so even a body nested 100k levels deep parses; garbage gives undefined. */
function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Only the origin of a redirect's target: its path or query may carry anything. */
function targetOrigin(response: WireReply, from: string): string {
  const location = response.headers.get('location');
  if (location === null) return 'no location given';
  try {
    return new URL(location, from).origin;
  } catch {
    return 'an address that does not parse';
  }
}
