import type { ChatClient, CompleteRequest } from './chat-client.js';
import type { ChatResponse } from './chat-response.js';
import { chatResponseFromMessage } from './chat-response-from-message.js';
import type { ChatTransport, TransportRequest } from './chat-transport.js';
import type { CostModel } from './cost-model.js';
import { messageOfReply } from './message-of-reply.js';
import { nonEmptyTools } from './non-empty-tools.js';
import { isRecord, readField } from './read-field.js';
import { checkTimeoutSeconds } from './timeout-seconds.js';

/** Options of a {@link ChatAdapter}. */
export interface ChatAdapterOptions {
  /**
   * Send `thinking: {type: 'disabled'}` on every call; default true, because the
   * provider reasons by default and then ignores temperature (spec 1.3).
   */
  disableThinking?: boolean;
  /** Turns each usage entry into USD for {@link ChatAdapter.costUsd}; default null (cost 0). */
  endpoint?: CostModel | null;
}

/**
 * Adapts an OpenAI-shaped transport (spec 4.2, 8): thinking off by default,
 * reasoning kept, one retry of empty JSON-mode content, usage and cost per raw
 * call, and bounded single-attempt copies.
 */
export class ChatAdapter implements ChatClient {
  /** Whether `thinking: {type: 'disabled'}` is sent on every call. */
  readonly disableThinking: boolean;
  /** The cost model of {@link ChatAdapter.costUsd}, or null. */
  readonly endpoint: CostModel | null;

  readonly #transport: ChatTransport;
  #maxOutputTokens: number | null = null;
  readonly #usage: Record<string, unknown>[] = [];
  #costUsd = 0;

  constructor(transport: ChatTransport, options: ChatAdapterOptions = {}) {
    if (!isRecord(transport) || typeof transport.completeChat !== 'function') {
      throw new TypeError('transport must be an object with a completeChat(request) method');
    }
    this.#transport = transport;
    this.disableThinking = options.disableThinking ?? true;
    this.endpoint = options.endpoint ?? null;
  }

  /** One copy of `reply.usage` per raw call, in call order. */
  get usage(): readonly Record<string, unknown>[] {
    return this.#usage;
  }

  /** Makes one chat call, plus one retry when JSON mode came back empty in an unbounded adapter. */
  async complete(request: CompleteRequest): Promise<ChatResponse> {
    const transportRequest = this.#transportRequest(request);
    const response = await this.#call(transportRequest);
    const emptyJson = request.jsonObject === true && (response.content ?? '').trim() === '';
    // Spec 8: JSON mode has no schema and sometimes answers empty; retry once,
    // never in a bounded copy, whose caller owns its retries.
    if (emptyJson && this.#maxOutputTokens === null) return this.#call(transportRequest);
    return response;
  }

  /** Sum of `endpoint.cost(entry)` over `usage` (an entry without a cost counts 0); 0 without an endpoint. O(1). */
  costUsd(): number {
    return this.#costUsd;
  }

  /**
   * A copy that caps each answer at `maxOutputTokens` (`max_tokens`), makes a
   * single attempt per call and never retries empty JSON; it keeps this
   * adapter's `disableThinking` and `endpoint` and starts its own empty `usage`.
   */
  bounded(maxOutputTokens: number): ChatAdapter {
    if (typeof maxOutputTokens !== 'number' || !Number.isInteger(maxOutputTokens) || maxOutputTokens <= 0) {
      throw new RangeError('max_output_tokens must be positive');
    }
    const transport = this.#transport.withMaxAttempts?.(1) ?? this.#transport;
    const copy = new ChatAdapter(transport, {
      disableThinking: this.disableThinking,
      endpoint: this.endpoint,
    });
    copy.#maxOutputTokens = maxOutputTokens;
    return copy;
  }

  /**
   * The model ids the provider lists (`GET /models`), through the transport's
   * `listModels`; a TypeError when the transport has none (a stub).
   */
  async listModels(options: { timeoutSeconds?: number } = {}): Promise<string[]> {
    if (typeof this.#transport.listModels !== 'function') {
      throw new TypeError('this transport cannot list models: it has no listModels(options) method');
    }
    return this.#transport.listModels(options);
  }

  #transportRequest(request: CompleteRequest): TransportRequest {
    if (!isRecord(request)) throw new TypeError('request must be an object');
    if (typeof request.model !== 'string') throw new TypeError('request.model must be a string');
    if (!Array.isArray(request.messages)) throw new TypeError('request.messages must be an array');
    const timeoutSeconds = checkTimeoutSeconds(request.timeoutSeconds, 'request.timeoutSeconds');
    const extraBody: Record<string, unknown> = {};
    if (this.disableThinking) extraBody.thinking = { type: 'disabled' };
    if (request.temperature !== undefined && request.temperature !== null) {
      extraBody.temperature = request.temperature;
    }
    if (request.jsonObject) extraBody.response_format = { type: 'json_object' };
    if (request.logprobs) {
      extraBody.logprobs = true;
      extraBody.top_logprobs = 1;
    }
    if (this.#maxOutputTokens !== null) extraBody.max_tokens = this.#maxOutputTokens;
    return {
      model: request.model,
      messages: request.messages,
      tools: nonEmptyTools(request.tools),
      timeoutSeconds,
      extraBody,
    };
  }

  async #call(request: TransportRequest): Promise<ChatResponse> {
    const transport = this.#transport;
    if (typeof transport.completeChatRaw !== 'function') {
      return chatResponseFromMessage(await transport.completeChat(request));
    }
    const reply = await transport.completeChatRaw(request);
    const usage = readField(reply, 'usage');
    if (isRecord(usage)) this.#record(usage);
    return chatResponseFromMessage(messageOfReply(reply));
  }

  #record(usage: Record<string, unknown>): void {
    // Object.assign, not a spread: V8 freezes a spread copy several times slower,
    // and a long run records one entry per call (bench/README.md, metering).
    const entry = Object.freeze(Object.assign({}, usage));
    this.#usage.push(entry);
    if (this.endpoint === null) return;
    // A running total keeps costUsd() O(1): a meter may check it after every call.
    const cost = this.endpoint.cost(entry);
    if (typeof cost === 'number' && Number.isFinite(cost)) this.#costUsd += cost;
  }
}
