import { VERSION } from 'openai/version';
import type { CallAttempt } from './call-attempt.js';
import { ChatError } from './chat-error.js';
import { readBody } from './read-body.js';
import { redact } from './redact.js';
import { describeCall, providerDetail, statusFailure } from './to-chat-error.js';

/** The key under which the SDK's request options carry the {@link CallAttempt} down to {@link wireFetch}. */
export const ATTEMPT: unique symbol = Symbol('switchboard.attempt');

/** The most of an error body kept (and read): 64 KiB, enough for any provider's explanation. */
const MAX_ERROR_BYTES = 64 * 1024;

const USER_AGENT = `OpenAI/JS ${VERSION}`;

/**
 * The `fetch` the SDK sends through. Switchboard decides what goes on the wire:
 * the headers are built here from the call alone (nothing the SDK took from
 * `OPENAI_*` variables, such as `OPENAI_CUSTOM_HEADERS`, gets through), the key
 * is added here (the SDK holds only a stand-in), redirects are refused, and an
 * error reply is read here, bounded in size and by the attempt's deadline, and
 * typed by its status; the SDK never reads a body.
 */
export function wireFetch(send: typeof fetch | undefined): typeof fetch {
  return async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const attempt = (init as Record<typeof ATTEMPT, CallAttempt | undefined> | undefined)?.[ATTEMPT];
    if (attempt === undefined) throw new TypeError('a request was sent outside an attempt');
    const { context } = attempt;
    // A plain record: fetch builds its own headers from it, so none are built twice.
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': USER_AGENT,
      'x-stainless-retry-count': String(attempt.number - 1),
      'x-stainless-timeout': String(Math.trunc(context.timeoutMs / 1000)),
    };
    if (init?.body !== undefined && init.body !== null) headers['content-type'] = 'application/json';
    if (context.apiKey !== '') headers.authorization = `Bearer ${context.apiKey}`;
    attempt.sent = true;
    // The attempt's own signal (its deadline and the caller's), not the SDK's, which only its own timer aborts.
    const response = await (send ?? fetch)(url, {
      method: init?.method ?? 'GET',
      headers,
      body: init?.body ?? null,
      signal: attempt.signal,
      redirect: 'manual',
    });
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
      const body = await readBody(response, MAX_ERROR_BYTES, attempt.ended);
      detail = body.overflowed
        ? plainDetail(
            `the error body passed the ${MAX_ERROR_BYTES / 1024} KiB cap; the connection was dropped`,
          )
        : providerDetail(parseOrUndefined(body.text), body.text);
    } catch {
      if (attempt.failure) throw attempt.failure;
      detail = plainDetail('the error body was cut off');
    }
    throw attempt.fail(statusFailure(context, status, response.headers, detail));
  };
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
function targetOrigin(response: Response, from: string): string {
  const location = response.headers.get('location');
  if (location === null) return 'no location given';
  try {
    return new URL(location, from).origin;
  } catch {
    return 'an address that does not parse';
  }
}
