import type { InspectOptions, inspect } from 'node:util';
import OpenAI from 'openai';
import { parseBaseUrl } from './base-url.js';
import { ChatError } from './chat-error.js';
import type { ChatTransport, TransportRequest } from './chat-transport.js';
import { messageOfReply } from './message-of-reply.js';
import { nonEmptyTools } from './non-empty-tools.js';
import { isRecord } from './read-field.js';
import { redact, redactError } from './redact.js';
import { checkTimeoutSeconds, timeoutMilliseconds } from './timeout-seconds.js';
import { type CallContext, describeCall, toChatError } from './to-chat-error.js';

/** Options of an {@link OpenAITransport}. */
export interface OpenAITransportOptions {
  /** The API key, sent as a bearer token; `''` sends no credentials at all. Kept private, never shown. */
  apiKey: string;
  /** Absolute http(s) address the paths `/chat/completions` and `/models` hang off; a trailing `/` is dropped. */
  baseUrl: string;
  /** Attempts per call, the first included (the SDK retries 408, 409, 429, 5xx and connection failures); default 3. */
  maxAttempts?: number;
  /** A `fetch` to send requests with; default the global one. */
  fetch?: typeof fetch;
}

/** Options of {@link OpenAITransport.listModels}. */
export interface ListModelsOptions {
  /** Per-attempt timeout in seconds; default 60. */
  timeoutSeconds?: number;
}

const DEFAULT_MAX_ATTEMPTS = 3;
// The SDK refuses to start without a key; this stand-in is never sent, as the
// Authorization header is removed when the caller's key is empty.
const NO_KEY_PLACEHOLDER = 'no-key';

/**
 * The real transport, on the official `openai` SDK: POST `{baseUrl}/chat/completions`
 * and GET `{baseUrl}/models`. Failures reject with a {@link ChatError}. The key
 * and the SDK client (which keeps the key on public fields) stay private.
 */
export class OpenAITransport implements ChatTransport {
  /** The address calls go to, without a trailing `/`. */
  readonly baseUrl: string;
  /** Attempts per call, the first included. */
  readonly maxAttempts: number;

  readonly #apiKey: string;
  readonly #fetch: typeof fetch | undefined;
  readonly #client: OpenAI;

  constructor(options: OpenAITransportOptions) {
    if (!isRecord(options)) throw new TypeError('OpenAITransport options must be an object');
    const { apiKey, fetch } = options;
    if (typeof apiKey !== 'string') {
      throw new TypeError(`apiKey must be a string ('' to send no credentials), got ${typeof apiKey}`);
    }
    if (fetch !== undefined && typeof fetch !== 'function') {
      throw new TypeError(`fetch must be a function, got ${typeof fetch}`);
    }
    this.baseUrl = parseBaseUrl(options.baseUrl, { name: 'baseUrl' });
    this.maxAttempts = validateMaxAttempts(options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS);
    this.#apiKey = apiKey;
    this.#fetch = fetch;
    this.#client = new OpenAI({
      apiKey: apiKey === '' ? NO_KEY_PLACEHOLDER : apiKey,
      baseURL: this.baseUrl,
      maxRetries: this.maxAttempts - 1,
      // Pinned so the SDK's own environment variables never add credentials or headers.
      adminAPIKey: null,
      organization: null,
      project: null,
      webhookSecret: null,
      ...(fetch ? { fetch } : {}),
      // An empty key sends no credentials; the provider's 401 then surfaces as an `auth` error.
      ...(apiKey === '' ? { defaultHeaders: { Authorization: null } } : {}),
    });
  }

  /** POST `{baseUrl}/chat/completions`; resolves with the whole reply payload, a JSON object. */
  async completeChatRaw(request: TransportRequest): Promise<Record<string, unknown>> {
    const timeoutMs = timeoutMilliseconds(checkTimeoutSeconds(request.timeoutSeconds));
    const context: CallContext = {
      method: 'POST',
      url: `${this.baseUrl}/chat/completions`,
      apiKey: this.#apiKey,
      timeoutMs,
      model: request.model,
    };
    const tools = nonEmptyTools(request.tools);
    const body = {
      model: request.model,
      messages: request.messages,
      temperature: 0,
      ...(tools ? { tools } : {}),
      ...request.extraBody,
    };
    return this.#send(context, () =>
      this.#client.chat.completions
        .create(
          body as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming,
          this.#requestOptions(timeoutMs),
        )
        .asResponse(),
    );
  }

  /** POST `{baseUrl}/chat/completions`; resolves with `choices[0].message`, or `{}` when there is none. */
  async completeChat(request: TransportRequest): Promise<Record<string, unknown>> {
    return messageOfReply(await this.completeChatRaw(request));
  }

  /** A copy with that many attempts per call, the same key, address and `fetch`. */
  withMaxAttempts(attempts: number): OpenAITransport {
    return new OpenAITransport({
      apiKey: this.#apiKey,
      baseUrl: this.baseUrl,
      maxAttempts: attempts,
      ...(this.#fetch ? { fetch: this.#fetch } : {}),
    });
  }

  /** GET `{baseUrl}/models`, read in OpenAI's shape `{data: [{id}]}`: the ids the platform accepts. */
  async listModels(options: ListModelsOptions = {}): Promise<string[]> {
    const timeoutMs = timeoutMilliseconds(checkTimeoutSeconds(options.timeoutSeconds));
    const context: CallContext = {
      method: 'GET',
      url: `${this.baseUrl}/models`,
      apiKey: this.#apiKey,
      timeoutMs,
    };
    const reply = await this.#send(context, () =>
      this.#client.get('/models', this.#requestOptions(timeoutMs)).asResponse(),
    );
    if (!Array.isArray(reply.data)) {
      throw new ChatError({
        kind: 'bad_reply',
        status: 200,
        message: `${describeCall(context, 200)}: the model list has no "data" array`,
      });
    }
    return reply.data.flatMap((model: unknown) =>
      isRecord(model) && typeof model.id === 'string' ? [model.id] : [],
    );
  }

  /** Only the address and attempts: the key never shows. */
  toJSON(): { baseUrl: string; maxAttempts: number } {
    return { baseUrl: this.baseUrl, maxAttempts: this.maxAttempts };
  }

  /** How `util.inspect` shows a transport: the address and attempts, never the key. */
  [Symbol.for('nodejs.util.inspect.custom')](
    _depth: number,
    options: InspectOptions,
    show: typeof inspect,
  ): string {
    return `OpenAITransport ${show(this.toJSON(), options)}`;
  }

  #requestOptions(timeoutMs: number): { timeout: number; maxRetries: number } {
    return { timeout: timeoutMs, maxRetries: this.maxAttempts - 1 };
  }

  async #send(context: CallContext, request: () => Promise<Response>): Promise<Record<string, unknown>> {
    let response: Response;
    try {
      response = await request();
    } catch (error) {
      throw toChatError(error, context);
    }
    return readReply(response, context);
  }
}

/**
 * Reads the body of a successful reply as a JSON object. A reply that arrives
 * but cannot be read (not JSON, truncated, not an object) is `bad_reply`; a
 * body that stalls past the timeout is `timeout`.
 */
async function readReply(response: Response, context: CallContext): Promise<Record<string, unknown>> {
  const where = describeCall(context, response.status);
  const fail = (kind: 'bad_reply' | 'timeout', detail: string, cause?: unknown): ChatError =>
    new ChatError({
      kind,
      status: response.status,
      message: redact(`${where}: ${detail}`, context.apiKey),
      cause,
    });
  let text: string;
  try {
    text = await readText(response, context.timeoutMs);
  } catch (error) {
    if (error === BODY_TIMEOUT) {
      throw fail('timeout', `the reply body did not arrive within ${context.timeoutMs} ms`);
    }
    throw fail('bad_reply', 'the reply body could not be read (cut off)', redactError(error, context.apiKey));
  }
  if (text.trim() === '') throw fail('bad_reply', 'the reply body is empty');
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    throw fail('bad_reply', `the reply is not valid JSON (${text.length} characters)`);
  }
  if (!isRecord(payload)) {
    throw fail('bad_reply', `the reply is ${describeJson(payload)}, expected a JSON object`);
  }
  return payload;
}

const BODY_TIMEOUT = Symbol('body timeout');

/** The body as text; rejects with {@link BODY_TIMEOUT} when it stalls, since the SDK's timer stops at the headers. */
async function readText(response: Response, timeoutMs: number): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const decoder = new TextDecoder();
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      reject(BODY_TIMEOUT);
      reader.cancel().catch(() => {});
    }, timeoutMs);
  });
  try {
    let text = '';
    for (;;) {
      const chunk = await Promise.race([reader.read(), timeout]);
      // Cancelling ends a pending read as if the body were complete.
      if (timedOut) throw BODY_TIMEOUT;
      if (chunk.done) return text + decoder.decode();
      text += decoder.decode(chunk.value, { stream: true });
    }
  } finally {
    clearTimeout(timer);
  }
}

function describeJson(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

function validateMaxAttempts(maxAttempts: unknown): number {
  if (typeof maxAttempts !== 'number' || !Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new RangeError(`maxAttempts must be a positive integer, got ${String(maxAttempts)}`);
  }
  return maxAttempts;
}
