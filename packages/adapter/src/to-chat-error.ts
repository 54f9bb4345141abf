import { STATUS_CODES } from 'node:http';
import { ChatError } from './chat-error.js';
import type { ChatErrorKind } from './chat-error-kind.js';
import { HEADERS_OVERFLOW_MESSAGE, isHeadersOverflow } from './headers-overflow.js';
import { loadOpenAI } from './load-openai.js';
import { ModelRejectedError } from './model-rejected-error.js';
import type { ProviderDetail } from './provider-detail.js';
import { isRecord } from './read-field.js';
import { redact, redactError } from './redact.js';
import { isRetryableStatus } from './retry-policy.js';
import { isModelRejection, supportedModels } from './supported-models.js';
import { thinkingRejectionHint } from './thinking-rejection.js';
import type { ReplyHeaders } from './wire-reply.js';

/** Where a failed call went, to name it in the error message. */
export interface CallContext {
  method: 'GET' | 'POST';
  url: string;
  /** Redacted from every message and cause; never shown. */
  apiKey: string;
  /** Per-attempt timeout in milliseconds. */
  timeoutMs: number;
  /** The model id of a chat call, so a refusal can name it. */
  model?: string;
  /** Whether the chat call's body carried `thinking`, so a server's refusal of it can say how to stop it. */
  sentThinking?: boolean;
}

const MAX_PROVIDER_MESSAGE = 1000;

/** `[POST] "<url>": 429 Too Many Requests` */
export function describeCall(context: CallContext, status?: number): string {
  const prefix = `[${context.method}] "${context.url}"`;
  if (status === undefined) return prefix;
  const statusText = STATUS_CODES[status];
  return `${prefix}: ${status}${statusText ? ` ${statusText}` : ''}`;
}

/** Maps whatever the SDK threw to a {@link ChatError}, with the SDK's error (free of the key) as `cause`. */
export function toChatError(error: unknown, context: CallContext): ChatError {
  if (ChatError.isInstance(error)) return error;
  const cause = redactError(error, context.apiKey);
  const { APIConnectionError, APIConnectionTimeoutError, APIUserAbortError } = loadOpenAI();
  const fail = (kind: ChatErrorKind, detail: string, retryable: boolean): ChatError =>
    new ChatError({ kind, cause, message: redact(detail, context.apiKey), retryable });

  if (isHeadersOverflow(error)) {
    return fail('bad_reply', `${describeCall(context)}: ${HEADERS_OVERFLOW_MESSAGE}`, false);
  }

  if (error instanceof APIConnectionTimeoutError) {
    return fail(
      'timeout',
      `${describeCall(context)}: no reply within ${context.timeoutMs} ms (per attempt)`,
      true,
    );
  }
  if (error instanceof APIUserAbortError) {
    return fail('connection', `${describeCall(context)}: the request was aborted`, true);
  }
  if (error instanceof APIConnectionError) {
    return fail('connection', `${describeCall(context)}: connection failed: ${causeMessages(error)}`, true);
  }
  return fail('bad_request', `${describeCall(context)}: the request failed: ${causeMessages(error)}`, false);
}

/**
 * A request `fetch` could not send or whose reply never came (refused, reset, DNS):
 * `connection`, retryable, the network error (free of the key) as `cause`. A reply whose
 * headers passed the client's limit ({@link isHeadersOverflow}) is a `bad_reply` instead, not retried.
 */
export function connectionFailure(error: unknown, context: CallContext): ChatError {
  if (isHeadersOverflow(error)) {
    return new ChatError({
      kind: 'bad_reply',
      cause: redactError(error, context.apiKey),
      message: redact(`${describeCall(context)}: ${HEADERS_OVERFLOW_MESSAGE}`, context.apiKey),
      retryable: false,
    });
  }
  return new ChatError({
    kind: 'connection',
    cause: redactError(error, context.apiKey),
    message: redact(`${describeCall(context)}: connection failed: ${causeMessages(error)}`, context.apiKey),
    retryable: true,
  });
}

/**
 * The failure an HTTP error status stands for, typed by the status (402
 * `billing`, 401/403 `auth`, 408 `timeout`, 429 `rate_limited`, 409 and 5xx
 * `server`, a refused model id `model_rejected`), `retryable` as the policy
 * decides (`x-should-retry` included). `lead` replaces the usual
 * `[POST] "<url>": <status>` opening.
 */
export function statusFailure(
  context: CallContext,
  status: number,
  headers: ReplyHeaders | undefined,
  detail: ProviderDetail,
  lead: string = describeCall(context, status),
): ChatError {
  const hint = thinkingRejectionHint(status, context.sentThinking === true, detail);
  const message = redact(`${lead}${detail.message ? `: ${detail.message}` : ''}${hint}`, context.apiKey);
  // The SDK's own error class for the status, as the cause; built without the body, so nothing deep is walked.
  const cause = redactError(
    loadOpenAI().APIError.generate(
      status,
      undefined,
      redact(detail.message, context.apiKey),
      asHeaders(headers),
    ),
    context.apiKey,
  );
  if (context.model !== undefined && isModelRejection(status, detail.code, detail.param, detail.message)) {
    return new ModelRejectedError({
      message,
      model: context.model,
      supportedModels: supportedModels(detail.message),
      cause,
    });
  }
  return new ChatError({
    kind: kindOfStatus(status),
    status,
    message,
    cause,
    retryable: isRetryableStatus(status, headers),
  });
}

/**
 * What an error body says, read without recursion (a body nested 100k levels
 * deep is fine): `error.message` (or a string `error`), else the text itself;
 * the gateway's `error.metadata.raw` is appended, as it carries the upstream's words.
 */
export function providerDetail(body: unknown, text: string): ProviderDetail {
  const inner = isRecord(body) ? (isRecord(body.error) ? body.error : body) : undefined;
  let message: string;
  if (typeof inner?.message === 'string') message = inner.message;
  else if (isRecord(body) && typeof body.error === 'string') message = body.error;
  else message = text.trim();
  const metadata = inner?.metadata;
  const raw = isRecord(metadata) ? metadata.raw : undefined;
  const rawText = typeof raw === 'string' ? raw : raw === undefined || raw === null ? '' : jsonOrEmpty(raw);
  if (rawText !== '' && !message.includes(rawText)) message = message ? `${message} (${rawText})` : rawText;
  return {
    message: message.length > MAX_PROVIDER_MESSAGE ? `${message.slice(0, MAX_PROVIDER_MESSAGE)}…` : message,
    code: inner?.code,
    param: inner?.param,
  };
}

/** The SDK's error wants a `Headers`: a fetch reply's as they are, another transport's copied (an error path). */
function asHeaders(headers: ReplyHeaders | undefined): Headers {
  if (headers === undefined) return new Headers();
  return headers instanceof Headers ? headers : new Headers([...headers]);
}

/** The kind an HTTP status stands for. */
function kindOfStatus(status: number): ChatErrorKind {
  if (status === 401 || status === 403) return 'auth';
  if (status === 402) return 'billing';
  if (status === 408) return 'timeout';
  if (status === 429) return 'rate_limited';
  // A conflict is transient (a lock held elsewhere) and retried, so it is not the caller's bad request.
  if (status === 409 || status >= 500) return 'server';
  if (status >= 400) return 'bad_request';
  return 'bad_reply';
}

function jsonOrEmpty(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}

/** "fetch failed: connect ECONNREFUSED 127.0.0.1:9" from an error and its causes. */
function causeMessages(error: unknown): string {
  const messages: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth += 1) {
    const message = current.message.replace(/\.$/, '');
    if (message && !messages.includes(message)) messages.push(message);
    current = current.cause;
  }
  return messages.join(': ') || String(error);
}
