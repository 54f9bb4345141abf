import type { CallAttempt } from './call-attempt.js';
import { ChatError } from './chat-error.js';
import { describeType } from './describe-type.js';
import { overflowDetail, readBody } from './read-body.js';
import { isRecord } from './read-field.js';
import { redact, redactError } from './redact.js';
import { type CallContext, describeCall, providerDetail, statusFailure } from './to-chat-error.js';
import type { ReplyHeaders, WireReply } from './wire-reply.js';

/**
 * Reads a successful reply as a JSON object, within the attempt's deadline and
 * `maxBytes` (counted after decoding, as it arrives). Fails `bad_reply` when it
 * cannot be read: retryable when it was empty, whitespace only (a platform's
 * overload answer) or cut off mid-way; not when it is not JSON or too long. A 200 carrying an `error` object is
 * that error, typed by its code, never a success.
 */
export async function readReply(
  response: WireReply,
  attempt: CallAttempt,
  maxBytes: number,
): Promise<Record<string, unknown>> {
  const { context } = attempt;
  let text: string;
  try {
    const body = await readBody(response, maxBytes, attempt);
    if (body.overflowed) {
      throw badReply(
        response,
        context,
        `the reply body passed the ${sizeOf(maxBytes)} cap (maxReplyBytes): ${overflowDetail(body, response)}; the connection was dropped`,
        false,
      );
    }
    text = body.text;
  } catch (error) {
    if (ChatError.isInstance(error)) throw error;
    if (attempt.failure) throw attempt.failure;
    throw badReply(
      response,
      context,
      'the reply body was cut off before its end',
      true,
      redactError(error, context.apiKey),
    );
  }
  // Keep-alive newlines before a slow body are whitespace, which JSON.parse skips.
  if (text.trim() === '')
    throw badReply(response, context, 'the reply body is empty or only whitespace', true);
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    throw badReply(response, context, `the reply is not valid JSON (${text.length} characters)`, false);
  }
  if (!isRecord(payload))
    throw badReply(
      response,
      context,
      `the reply is JSON of type ${describeType(payload)}, expected an object`,
      false,
    );
  if (payload.error !== undefined && payload.error !== null)
    throw embeddedFailure(payload, context, attempt.headers);
  return payload;
}

/**
 * A 200 whose body (or one streamed event) carries an `error` object (a
 * gateway forwarding an upstream failure): typed as the HTTP status its `code`
 * names, with or without `choices`; a code that is no HTTP status gives a
 * `bad_reply`. `opening` names where it came from (the call, by default).
 */
export function embeddedFailure(
  payload: Record<string, unknown>,
  context: CallContext,
  headers: ReplyHeaders | undefined,
  opening = describeCall(context, 200),
): ChatError {
  const detail = providerDetail(payload, '');
  const code = detail.code;
  const status =
    typeof code === 'number' ? code : typeof code === 'string' && /^\d{3}$/.test(code) ? Number(code) : 0;
  const lead = `${opening}, carrying an error${status ? ` with code ${status}` : ''}`;
  if (Number.isInteger(status) && status >= 400 && status < 600) {
    return statusFailure(context, status, headers, detail, lead);
  }
  return new ChatError({
    kind: 'bad_reply',
    status: 200,
    message: redact(`${lead}${detail.message ? `: ${detail.message}` : ''}`, context.apiKey),
    retryable: false,
  });
}

/** A reply that cannot be read as the call's payload: a `bad_reply` naming the call and `detail`. */
function badReply(
  response: WireReply,
  context: CallContext,
  detail: string,
  retryable: boolean,
  cause?: unknown,
): ChatError {
  return new ChatError({
    kind: 'bad_reply',
    status: response.status,
    message: redact(`${describeCall(context, response.status)}: ${detail}`, context.apiKey),
    retryable,
    cause,
  });
}

function sizeOf(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
