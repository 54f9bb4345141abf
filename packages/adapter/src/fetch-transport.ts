import { parseBaseUrl } from './base-url.js';
import type { CallAttempt } from './call-attempt.js';
import { isRecord } from './read-field.js';
import { limitOptions, transportLimits } from './transport-limits.js';
import type { OpenAITransportOptions } from './transport-options.js';
import { wireFetch } from './wire-fetch.js';
import { type WireCall, WireTransport } from './wire-transport.js';

/**
 * The real transport: POST `{baseUrl}/chat/completions` and GET `{baseUrl}/models`,
 * each request built with `fetch` directly — the URL, the JSON body
 * (`JSON.stringify`, byte for byte what the `openai` SDK sends for the same fields)
 * and the headers from the call alone. Switchboard owns the rest: one deadline per
 * attempt covering the whole body, its own retry loop, bounded replies, redirects
 * refused, a wire free of the environment (`OPENAI_*` variables change nothing,
 * nothing is logged). Failures reject with a `ChatError`. The key stays private.
 */
export class FetchTransport extends WireTransport {
  readonly #apiKey: string;
  readonly #fetch: typeof fetch | undefined;

  constructor(options: OpenAITransportOptions) {
    if (!isRecord(options)) throw new TypeError(`${new.target.name} options must be an object`);
    const { apiKey, fetch } = options;
    if (typeof apiKey !== 'string') {
      throw new TypeError(`apiKey must be a string ('' to send no credentials), got ${typeof apiKey}`);
    }
    if (fetch !== undefined && typeof fetch !== 'function') {
      throw new TypeError(`fetch must be a function, got ${typeof fetch}`);
    }
    super(parseBaseUrl(options.baseUrl, { name: 'baseUrl' }), transportLimits(options));
    this.#apiKey = apiKey;
    this.#fetch = fetch;
  }

  /** A copy with that many attempts per call, the same key, address, `fetch` and limits (and class). */
  withMaxAttempts(attempts: number): FetchTransport {
    const Same = this.constructor as new (options: OpenAITransportOptions) => FetchTransport;
    return new Same({
      apiKey: this.#apiKey,
      baseUrl: this.baseUrl,
      ...limitOptions(this.limits, attempts),
      ...(this.#fetch ? { fetch: this.#fetch } : {}),
    });
  }

  /** @internal */
  protected get apiKeyForRedaction(): string {
    return this.#apiKey;
  }

  /** @internal */
  protected send(attempt: CallAttempt, call: WireCall): Promise<Response> {
    const body = call.body === null ? null : JSON.stringify(call.body);
    return wireFetch(this.#fetch, attempt, `${this.baseUrl}${call.path}`, call.method, body);
  }
}
