import { STATUS_CODES } from 'node:http';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { ChatError, type ChatErrorKind } from './chat-error.js';
import { ModelRejectedError } from './model-rejected-error.js';
import { isRecord } from './read-field.js';
import { redact, redactError } from './redact.js';
import { isModelRejection, supportedModels } from './supported-models.js';

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
  const fail = (kind: ChatErrorKind, detail: string, status: number | null = null): ChatError =>
    new ChatError({ kind, status, cause, message: redact(detail, context.apiKey) });

  if (error instanceof APIConnectionTimeoutError) {
    return fail('timeout', `${describeCall(context)}: no reply within ${context.timeoutMs} ms (per attempt)`);
  }
  if (error instanceof APIUserAbortError) {
    return fail('connection', `${describeCall(context)}: the request was aborted`);
  }
  if (error instanceof APIConnectionError) {
    return fail('connection', `${describeCall(context)}: connection failed: ${causeMessages(error)}`);
  }
  if (error instanceof APIError && typeof error.status === 'number') {
    const status = error.status;
    const explanation = providerMessage(error);
    const message = `${describeCall(context, status)}${explanation ? `: ${explanation}` : ''}`;
    if (context.model !== undefined && isModelRejection(status, error.code, error.param, explanation)) {
      return new ModelRejectedError({
        message: redact(message, context.apiKey),
        model: context.model,
        supportedModels: supportedModels(explanation),
        cause,
      });
    }
    return fail(kindOfStatus(status), message, status);
  }
  return fail('bad_request', `${describeCall(context)}: the request failed: ${causeMessages(error)}`);
}

function kindOfStatus(status: number): ChatErrorKind {
  if (status === 401 || status === 403) return 'auth';
  if (status === 408) return 'timeout';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'server';
  if (status >= 400) return 'bad_request';
  return 'bad_reply';
}

/** The provider's own explanation: `error.message` of the JSON body, else the body as the SDK kept it. */
function providerMessage(error: APIError): string {
  const body: unknown = error.error;
  let text: string;
  if (isRecord(body) && typeof body.message === 'string') text = body.message;
  else if (body !== undefined && body !== null) text = typeof body === 'string' ? body : JSON.stringify(body);
  else text = error.message.replace(/^\d{3} /, '').replace(/^status code \(no body\)$/, '');
  return text.length > MAX_PROVIDER_MESSAGE ? `${text.slice(0, MAX_PROVIDER_MESSAGE)}…` : text;
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
