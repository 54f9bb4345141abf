import { usdOfNano } from '@switchboard/prices';
import { CallDeadline } from './call-deadline.js';
import type { CallObserver } from './call-observer.js';
import type { CallRecord } from './call-record.js';
import type { ChatClient, CompleteRequest } from './chat-client.js';
import type { ChatResponse } from './chat-response.js';
import { chatResponseFromMessage } from './chat-response-from-message.js';
import type { ChatStream } from './chat-stream.js';
import type { ChatTransport, TransportRequest } from './chat-transport.js';
import { copyUsage } from './copy-usage.js';
import type { CostModel } from './cost-model.js';
import { CostTotal } from './cost-total.js';
import { makeCallRecord } from './make-call-record.js';
import { nonEmptyTools } from './non-empty-tools.js';
import { ObserverChain } from './observer-chain.js';
import { type PricingOutcome, priceCall } from './price-call.js';
import { type CallFacts, type RawCallResult, type RawCallSetup, rawCall } from './raw-call.js';
import { isRecord } from './read-field.js';
import { type StreamBreakPolicy, streamBreakOf } from './stream-break.js';
import { StreamCall } from './stream-call.js';
import { checkTenant, tenantOfRequest } from './tenant-name.js';
import { checkTimeoutSeconds } from './timeout-seconds.js';
import { warnUnpricedModel } from './unpriced-warning.js';
import { untilAborted } from './until-aborted.js';
import type { UsageEntry } from './usage-entry.js';
import { UsageLedger } from './usage-ledger.js';
import { withCalls } from './with-calls.js';

/** Options of a {@link ChatAdapter}. */
export interface ChatAdapterOptions {
  /**
   * Send `thinking: {type: 'disabled'}` on every call; default true, because the
   * provider reasons by default and then ignores temperature.
   */
  disableThinking?: boolean;
  /**
   * Prices each raw call for its record and {@link ChatAdapter.costUsd}; default null (nothing priced).
   * A reply with usage that it leaves unpriced counts 0 and warns once per model per process
   * (a process warning of code `SWITCHBOARD_UNPRICED_MODEL`, naming the model and how to price it).
   */
  endpoint?: CostModel | null;
  /** Told before each attempt and after each raw call, in this order; shared with bounded copies and views. */
  observers?: readonly CallObserver[];
  /**
   * What a stream the caller breaks off does with its connection (see {@link StreamBreakPolicy}):
   * `'close'` (default) or `'drain'`.
   */
  onStreamBreak?: StreamBreakPolicy;
  /** With `onStreamBreak: 'drain'`: how long the background read may take, in seconds; default 30. */
  drainSeconds?: number;
}

/** Options of {@link ChatAdapter.listModels}. */
export interface AdapterListModelsOptions {
  /** Per-attempt timeout in seconds; default 60. */
  timeoutSeconds?: number;
  /** Cancels the listing at once (kind `aborted`). */
  signal?: AbortSignal;
}

/** What a family of adapters (one adapter, its views and bounded copies) reports only once. */
interface Reported {
  costError: boolean;
}

/** The fields of a request the adapter has checked, ready for the transport. */
interface PreparedCall {
  readonly request: TransportRequest;
  readonly role: string | null;
  readonly tenant: string | null;
  readonly maxTokens: number | null;
  /** The call's total deadline in seconds, or null for none. */
  readonly deadlineSeconds: number | null;
  readonly jsonObject: boolean;
  readonly temperature: number;
}

/**
 * Adapts an OpenAI-shaped transport: thinking off by default, reasoning kept,
 * one retry of empty JSON-mode content, a record, usage and cost per raw call,
 * observers around every attempt, role and tenant views and bounded single-attempt copies.
 */
export class ChatAdapter implements ChatClient {
  /** Whether `thinking: {type: 'disabled'}` is sent on every call. */
  readonly disableThinking: boolean;
  /** The cost model that prices each raw call, or null. */
  readonly endpoint: CostModel | null;

  #transport: ChatTransport;
  #maxOutputTokens: number | null = null;
  #role: string | null = null;
  #tenant: string | null = null;
  #ledger = new UsageLedger();
  #total = new CostTotal();
  #observers: ObserverChain;
  #reported: Reported = { costError: false };
  #streamBreak: ReturnType<typeof streamBreakOf>;
  // Made once per adapter, not per call: the hot path allocates no closure for it.
  readonly #recordCall = (setup: RawCallSetup, facts: CallFacts): CallRecord => this.#record(setup, facts);

  constructor(transport: ChatTransport, options: ChatAdapterOptions = {}) {
    if (!isRecord(transport) || typeof transport.completeChat !== 'function') {
      throw new TypeError('transport must be an object with a completeChat(request) method');
    }
    const observers = options.observers ?? [];
    if (!Array.isArray(observers)) throw new TypeError('options.observers must be an array of observers');
    this.#transport = transport;
    this.disableThinking = options.disableThinking ?? true;
    this.endpoint = options.endpoint ?? null;
    this.#observers = new ObserverChain(null, observers);
    this.#streamBreak = streamBreakOf(options.onStreamBreak, options.drainSeconds);
  }

  /**
   * One frozen copy of `reply.usage` per raw call whose reply had one, in call
   * order: a read-only live view (writes throw or do nothing), O(1) to get.
   */
  get usage(): readonly UsageEntry[] {
    return this.#ledger.view;
  }

  /** The role a {@link ChatAdapter.forRole} view tags on its calls, else null. */
  get role(): string | null {
    return this.#role;
  }

  /** The tenant a {@link ChatAdapter.forTenant} view tags on its calls, else null. */
  get tenant(): string | null {
    return this.#tenant;
  }

  /**
   * Makes one chat call, plus one retry when JSON mode came back empty in an
   * unbounded adapter; `deadlineSeconds` bounds all of it.
   */
  async complete(request: CompleteRequest): Promise<ChatResponse> {
    const prepared = this.#prepare(request);
    if (prepared.deadlineSeconds === null) return this.#complete(prepared, request);
    const deadline = new CallDeadline(prepared.deadlineSeconds, prepared.request.signal);
    try {
      const call = { ...prepared, request: { ...prepared.request, signal: deadline.signal } };
      return await this.#complete(call, request);
    } finally {
      deadline.dispose();
    }
  }

  async #complete(call: PreparedCall, request: CompleteRequest): Promise<ChatResponse> {
    const first = await this.#rawCall(call);
    const response = chatResponseFromMessage(first.message);
    const emptyJson = request.jsonObject === true && (response.content ?? '').trim() === '';
    // JSON mode has no schema and sometimes answers empty: retry once, never in a
    // bounded copy, whose caller owns its retries.
    if (!emptyJson || this.#maxOutputTokens !== null) return withCalls(response, [first.record]);
    const second = await this.#rawCall(call);
    return withCalls(chatResponseFromMessage(second.message), [first.record, second.record]);
  }

  /**
   * Makes one chat call as a stream (`stream: true`): iterate the result for its
   * deltas as they arrive, await its `response` for what {@link ChatAdapter.complete}
   * would have returned for the same reply. Everything else is as for `complete()`:
   * one record per raw call through the same observers, role, caps, typed errors,
   * the empty-JSON retry (only while the caller has seen nothing). Retries happen
   * only before the first delta. `timeoutSeconds` bounds the wait for the first
   * event and every gap; `deadlineSeconds`, when given, the whole stream. A stream
   * that ends without usage is recorded with an estimated cost (`priceSource:
   * 'estimate'`). Throws a TypeError when the transport cannot stream.
   */
  stream(request: CompleteRequest): ChatStream {
    if (typeof this.#transport.streamChatRaw !== 'function') {
      throw new TypeError('this transport cannot stream: it has no streamChatRaw(request) method');
    }
    const call = this.#prepare(request);
    return new StreamCall({
      ...this.#setupOf(call),
      jsonObject: request.jsonObject === true,
      retryWhitespace: this.#maxOutputTokens === null,
      deadlineMs: call.deadlineSeconds === null ? null : Math.max(1, Math.round(call.deadlineSeconds * 1000)),
      signal: call.request.signal,
      onStreamBreak: this.#streamBreak.policy,
      drainMs: this.#streamBreak.drainMs,
    });
  }

  /**
   * The sum of this adapter's per-call costs (`calls[].costUsd`, unpriced calls 0);
   * 0 without an endpoint. Summed exactly in nano-dollars: the result is the
   * nearest number to a decimal of at most nine places. O(1).
   */
  costUsd(): number {
    return this.#ledger.costUsd;
  }

  /** {@link ChatAdapter.costUsd} in whole nano-dollars (1e-9 USD), the exact integer. O(1). */
  costNanoUsd(): number {
    return this.#ledger.costNanoUsd;
  }

  /** The cost of this adapter's calls plus those of all its bounded copies (and theirs), summed exactly. O(1). */
  totalCostUsd(): number {
    return this.#total.usd;
  }

  /** {@link ChatAdapter.totalCostUsd} in whole nano-dollars (1e-9 USD), the exact integer. O(1). */
  totalCostNanoUsd(): number {
    return this.#total.nanoUsd;
  }

  /**
   * Adds an observer, called after those already there, for this adapter, its
   * views and its bounded copies (also ones made earlier). Returns a function
   * that removes it again.
   */
  observe(observer: CallObserver): () => void {
    return this.#observers.add(observer);
  }

  /**
   * A view of this adapter that tags every call's record and attempts with
   * `role` (a request's own `role` wins). It shares everything else: transport,
   * cap, tenant, `usage`, `costUsd()`, `totalCostUsd()` and observers.
   */
  forRole(role: string): ChatAdapter {
    if (typeof role !== 'string' || role.trim() === '')
      throw new TypeError('role must be a non-empty string');
    const view = this.#view();
    view.#role = role;
    return view;
  }

  /**
   * A view of this adapter whose calls carry `tenant` (the customer they are made for) on their
   * attempts, records and journal lines; a request's own `tenant` wins. A budget with `tenants`
   * charges them to the tenant's scope. Composes with {@link ChatAdapter.forRole} in either order,
   * and shares everything else as a role view does. `tenant`: a non-empty string of at most 256
   * characters, well-formed, without control characters, `{`, `}` or `/` (a TypeError names the rule).
   */
  forTenant(tenant: string): ChatAdapter {
    const view = this.#view();
    view.#tenant = checkTenant(tenant, 'tenant');
    return view;
  }

  /** A view sharing this adapter's cap, role, tenant, usage, costs and observers. */
  #view(): ChatAdapter {
    const view = this.#derive(this.#transport);
    view.#ledger = this.#ledger;
    view.#total = this.#total;
    view.#observers = this.#observers;
    return view;
  }

  /**
   * A copy that caps each answer at `maxOutputTokens` (`max_tokens`), makes a
   * single attempt per call and never retries empty JSON; it keeps this
   * adapter's `disableThinking`, `endpoint`, role, tenant and observers and starts its
   * own empty `usage` and `costUsd()`; its costs also reach this adapter's
   * `totalCostUsd()`.
   */
  bounded(maxOutputTokens: number): ChatAdapter {
    if (typeof maxOutputTokens === 'number' && maxOutputTokens <= 0) {
      throw new RangeError('max_output_tokens must be positive');
    }
    if (!Number.isInteger(maxOutputTokens) || maxOutputTokens <= 0) {
      throw new RangeError('max_output_tokens must be a positive integer');
    }
    const copy = this.#derive(this.#transport.withMaxAttempts?.(1) ?? this.#transport);
    copy.#maxOutputTokens = maxOutputTokens;
    copy.#total = new CostTotal(this.#total);
    copy.#observers = new ObserverChain(this.#observers);
    return copy;
  }

  /**
   * The model ids the provider lists (`GET /models`), through the transport's
   * `listModels`; a TypeError when the transport has none (a stub).
   */
  async listModels(options: AdapterListModelsOptions = {}): Promise<string[]> {
    if (typeof this.#transport.listModels !== 'function') {
      throw new TypeError('this transport cannot list models: it has no listModels(options) method');
    }
    return untilAborted(this.#transport.listModels(options), options.signal);
  }

  #derive(transport: ChatTransport): ChatAdapter {
    const copy = newChatAdapter(transport, {
      disableThinking: this.disableThinking,
      endpoint: this.endpoint,
    });
    copy.#maxOutputTokens = this.#maxOutputTokens;
    copy.#role = this.#role;
    copy.#tenant = this.#tenant;
    copy.#reported = this.#reported;
    copy.#streamBreak = this.#streamBreak;
    return copy;
  }

  #prepare(request: CompleteRequest): PreparedCall {
    if (!isRecord(request)) throw new TypeError('request must be an object');
    if (typeof request.model !== 'string') throw new TypeError('request.model must be a string');
    if (!Array.isArray(request.messages)) throw new TypeError('request.messages must be an array');
    const timeoutSeconds = checkTimeoutSeconds(request.timeoutSeconds, 'request.timeoutSeconds');
    const deadlineSeconds =
      request.deadlineSeconds === undefined || request.deadlineSeconds === null
        ? null
        : checkTimeoutSeconds(request.deadlineSeconds, 'request.deadlineSeconds');
    const maxTokens = this.#capOf(request.maxTokens);
    const role = roleOf(request.role) ?? this.#role;
    const tenant = tenantOfRequest(request.tenant) ?? this.#tenant;
    const signal = signalOf(request.signal);
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
    if (maxTokens !== null) extraBody.max_tokens = maxTokens;
    const transportRequest: TransportRequest = {
      model: request.model,
      messages: request.messages,
      tools: nonEmptyTools(request.tools),
      timeoutSeconds,
      extraBody,
    };
    if (signal !== undefined) transportRequest.signal = signal;
    return {
      request: transportRequest,
      role,
      tenant,
      maxTokens,
      deadlineSeconds,
      jsonObject: request.jsonObject === true,
      // The raw call's default temperature is 0.
      temperature: typeof request.temperature === 'number' ? request.temperature : 0,
    };
  }

  /** The `max_tokens` to send: the request's and the bounded cap, the smaller when both are set. */
  #capOf(maxTokens: unknown): number | null {
    if (maxTokens === undefined || maxTokens === null) return this.#maxOutputTokens;
    if (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens <= 0) {
      throw new RangeError(`request.maxTokens must be a positive integer, got ${String(maxTokens)}`);
    }
    return this.#maxOutputTokens === null ? maxTokens : Math.min(maxTokens, this.#maxOutputTokens);
  }

  #rawCall(call: PreparedCall): Promise<RawCallResult> {
    return rawCall(this.#setupOf(call));
  }

  #setupOf(call: PreparedCall): RawCallSetup {
    return {
      transport: this.#transport,
      request: call.request,
      role: call.role,
      tenant: call.tenant,
      maxTokens: call.maxTokens,
      jsonObject: call.jsonObject,
      temperature: call.temperature,
      observers: this.#observers.list(),
      record: this.#recordCall,
    };
  }

  #record(call: RawCallSetup, facts: CallFacts): CallRecord {
    const model = call.request.model;
    const usage = facts.usage === null ? null : copyUsage(facts.usage);
    // Only a usage that settles the call exactly counts in the usage totals.
    if (usage !== null && facts.settlement === 'exact') this.#ledger.add(usage);
    const pricing = this.#price(model, usage, facts);
    // Running totals keep costUsd() and totalCostUsd() O(1): a meter may read them after every call.
    if (pricing.costNanoUsd !== null) {
      this.#ledger.addCost(pricing.costNanoUsd);
      this.#total.add(pricing.costNanoUsd);
    }
    // A cost model that prices nothing for a reply with usage: the run would silently count 0.
    if (
      this.endpoint !== null &&
      facts.settlement === 'exact' &&
      pricing.costNanoUsd === null &&
      pricing.costError === null
    ) {
      warnUnpricedModel(model);
    }
    if (pricing.costError !== null && !this.#reported.costError) {
      this.#reported.costError = true;
      process.emitWarning(`${pricing.costError}; such calls count 0 (see CallRecord.costError)`, {
        code: 'SWITCHBOARD_COST_MODEL',
      });
    }
    return makeCallRecord(call, facts, usage, pricing);
  }

  /**
   * The call's pricing, as its settlement says: from its trusted usage (`exact`), from
   * what was received (`estimate`, marked as one), else none (`unsettled`, `none`).
   */
  #price(model: string, usage: UsageEntry | null, facts: CallFacts): PricingOutcome {
    if (facts.settlement === 'exact') return priceCall(this.endpoint, model, usage, facts.at);
    const estimate = facts.estimatedUsage;
    if (facts.settlement !== 'estimate' || estimate === undefined || estimate === null) {
      return priceCall(null, model, null, facts.at);
    }
    const pricing = priceCall(this.endpoint, model, copyUsage(estimate), facts.at);
    if (pricing.costUsd === null) return pricing;
    const { providerCostUsd: _ignored, ...rest } = pricing;
    return { ...rest, priceSource: 'estimate' };
  }
}

function roleOf(role: unknown): string | null {
  if (role === undefined || role === null) return null;
  if (typeof role !== 'string') throw new TypeError(`request.role must be a string, got ${typeof role}`);
  return role;
}

function signalOf(signal: unknown): AbortSignal | undefined {
  if (signal === undefined || signal === null) return undefined;
  if (
    !isRecord(signal) ||
    typeof signal.aborted !== 'boolean' ||
    typeof signal.addEventListener !== 'function'
  ) {
    throw new TypeError('request.signal must be an AbortSignal');
  }
  return signal as unknown as AbortSignal;
}

/**
 * `new ChatAdapter(...)` from outside the class body: a class that names itself inside its
 * body is renamed by the bundler (`_ChatAdapter`), and the class's name is what users see.
 */
function newChatAdapter(...args: ConstructorParameters<typeof ChatAdapter>): ChatAdapter {
  return new ChatAdapter(...args);
}
