import type OpenAI from 'openai';
import { parseBaseUrl } from './base-url.js';
import type { CallAttempt } from './call-attempt.js';
import { withCappedErrorBodies } from './capped-error-fetch.js';
import { isRecord } from './read-field.js';
import { providerDetail, statusFailure } from './to-chat-error.js';
import { transportLimits } from './transport-limits.js';
import { checkedReply } from './wire-fetch.js';
import { type WireCall, WireTransport } from './wire-transport.js';

/**
 * A transport over a caller's own configured `openai` client — for teams whose SDK
 * carries a proxy, custom auth or an enterprise base URL. Each attempt is one call of
 * the client's raw-response operation (`chat.completions.create(...).asResponse()`,
 * `get('/models')`), so the client builds and sends the request its own way (its
 * headers, its `fetch`, **its own retries**: this transport makes one attempt per
 * call and leaves retrying to the client). Switchboard reads the reply as with
 * {@link FetchTransport}: the same records, costs, streams, caps, per-attempt
 * deadline and typed errors. The client reads an error reply's body itself, so
 * calls go through a copy of it (`withOptions`) whose `fetch` (its own) cuts
 * that body at the 64 KiB error cap, counted after decoding. The client's key is
 * used only to keep it out of messages.
 */
export class OpenAIClientTransport extends WireTransport {
  readonly #client: OpenAI;
  readonly #apiKey: string;

  constructor(client: OpenAI) {
    if (!isRecord(client) || typeof client.chat?.completions?.create !== 'function') {
      throw new TypeError(
        'OpenAIClientTransport needs an OpenAI client (new OpenAI({...}) from the openai package)',
      );
    }
    super(parseBaseUrl(client.baseURL, { name: 'client.baseURL' }), transportLimits({ maxAttempts: 1 }));
    this.#client = withCappedErrorBodies(client);
    this.#apiKey = typeof client.apiKey === 'string' ? client.apiKey : '';
  }

  /** The same client: its own retries are what a call gets, so the attempts cannot change. */
  withMaxAttempts(_attempts: number): OpenAIClientTransport {
    return this;
  }

  /** @internal */
  protected get apiKeyForRedaction(): string {
    return this.#apiKey;
  }

  /** @internal */
  protected async send(attempt: CallAttempt, call: WireCall): Promise<Response> {
    attempt.sent = true;
    const options = { signal: attempt.signal };
    let response: Response;
    try {
      response =
        call.body === null
          ? await this.#client.get(call.path, options).asResponse()
          : await this.#client.chat.completions
              .create(call.body as unknown as OpenAI.ChatCompletionCreateParams, options)
              .asResponse();
    } catch (error) {
      // The client read an error status itself: typed here as for any transport.
      if (isRecord(error) && typeof error.status === 'number' && attempt.failure === undefined) {
        const headers = error.headers instanceof Headers ? error.headers : undefined;
        attempt.status = error.status;
        attempt.headers = headers;
        const message = typeof error.message === 'string' ? error.message : '';
        throw attempt.fail(
          statusFailure(
            attempt.context,
            error.status,
            headers,
            providerDetail({ error: error.error }, message),
          ),
        );
      }
      throw error;
    }
    return checkedReply(response, attempt);
  }
}
