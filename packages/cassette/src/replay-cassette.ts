import { lstatSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  type AttemptOverrides,
  ChatError,
  type ChatTransport,
  type CostModel,
  type PricedCall,
  type TransportRequest,
  type UsageEntry,
  withRequestOverrides,
} from '@switchboard/adapter';
import type { CassetteEntry, RecordedEndpoint, RecordedStream } from './cassette-entry.js';
import { CassetteWriter } from './cassette-writer.js';
import { messageOf } from './message-of.js';
import { type Cassette, readCassette } from './read-cassette.js';
import { type RecordContext, recordPlainCall, recordStreamCall } from './record-call.js';
import { replayedError } from './recorded-error.js';
import { isFailure, isStream } from './recorded-reply-kind.js';
import { ReplayState } from './replay-state.js';
import { environmentSecrets, secretRules } from './secret-scan.js';
import type { StreamEvent, StreamingTransport, TransportEventStream } from './transport-stream.js';

/** Options of {@link replayCassette}. */
export interface ReplayCassetteOptions {
  /**
   * `strict` (default, for CI): a request with no recording left fails with a
   * `CassetteMissError`. `passthrough`: it goes to `transport` and is appended.
   */
  mode?: 'strict' | 'passthrough';
  /** The real transport misses go to in `passthrough` mode (required there). */
  transport?: ChatTransport;
  /** `fast` (default): replies at once. `recorded`: each attempt, reply and stream event after its recorded delay. */
  timing?: 'recorded' | 'fast';
  /**
   * The key the code would send, any value (`replay` will do): only whether it
   * is empty is compared with the recording (a cassette recorded with a key does
   * not answer a call without one). Its value never changes a request before it
   * is matched. Default: presence not checked.
   */
  apiKey?: string;
  /**
   * `own` (default): this transport replays the cassette from its first call.
   * `process`: every replay of the same file in this process with `process`
   * shares one progress, so identical requests made through several resolutions
   * (one per test, say) get their recordings in recorded order, as they were
   * recorded; a request made more often than recorded starts over from its first
   * recording (a second session in the process replays like the first) instead
   * of missing. `resolveChatEndpoint` replays this way.
   */
  progress?: 'own' | 'process';
}

/**
 * A transport that answers from the cassette at `path` without opening a
 * socket: each request is matched by the hash of its normalised body (key order
 * and formatting aside), repeated identical requests get their recordings in
 * recorded order, each recorded attempt is replayed to the request's attempt
 * hooks, and failures are rejected as the `ChatError` they were.
 *
 * @throws {CassetteFormatError} when the file cannot be read as a cassette.
 */
export function replayCassette(path: string, options: ReplayCassetteOptions = {}): ReplayTransport {
  const mode = options.mode ?? 'strict';
  if (mode !== 'strict' && mode !== 'passthrough') {
    throw new TypeError(`options.mode must be 'strict' or 'passthrough', got ${String(mode)}`);
  }
  const timing = options.timing ?? 'fast';
  if (timing !== 'fast' && timing !== 'recorded') {
    throw new TypeError(`options.timing must be 'recorded' or 'fast', got ${String(timing)}`);
  }
  if (mode === 'passthrough' && (typeof options.transport !== 'object' || options.transport === null)) {
    throw new TypeError("options.transport is required in 'passthrough' mode: misses are sent through it");
  }
  if (options.apiKey !== undefined && typeof options.apiKey !== 'string') {
    throw new TypeError('options.apiKey must be a string');
  }
  const progress = options.progress ?? 'own';
  if (progress !== 'own' && progress !== 'process') {
    throw new TypeError(`options.progress must be 'own' or 'process', got ${String(progress)}`);
  }
  const { cassette, identity } = readShared(path);
  const state = new ReplayState(cassette, options.apiKey, progress === 'process' ? identity : null);
  const shared: Shared = { state, timing, fallback: null, passthrough: null };
  if (mode === 'passthrough') {
    const key = options.apiKey ?? '';
    const rules = secretRules([key, ...environmentSecrets(process.env)]);
    shared.passthrough = {
      transport: options.transport as ChatTransport,
      context: {
        writer: CassetteWriter.append(path, rules),
        keyPresent: options.apiKey === undefined ? null : key !== '',
        costModel: () => shared.fallback,
        onEntry: (entry) => state.appended(entry),
        calls: () => cassette.entries.length,
      },
    };
  }
  return new ReplayTransport(shared, cassette.header.endpoint);
}

const READ = Symbol.for('switchboard.cassette.read');

/**
 * The cassette at `path`, read once per process while the file stays the same
 * (several resolutions replaying one cassette share it), with the file's identity.
 */
function readShared(path: string): { cassette: Cassette; identity: string } {
  const stats = lstatSync(path, { throwIfNoEntry: false });
  const cassetteOf = (): Cassette => readCassette(path);
  if (stats === undefined || !stats.isFile())
    return { cassette: cassetteOf(), identity: `${resolve(path)}:unread` };
  const identity = `${resolve(path)}:${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}`;
  const holder = process as unknown as Record<symbol, Map<string, Cassette> | undefined>;
  let cache = holder[READ];
  if (cache === undefined) {
    cache = new Map();
    holder[READ] = cache;
  }
  const cached = cache.get(identity);
  if (cached !== undefined && cached.path === path) return { cassette: cached, identity };
  const cassette = cassetteOf();
  if (cache.size >= 8) cache.delete(cache.keys().next().value as string);
  cache.set(identity, cassette);
  return { cassette, identity };
}

interface Shared {
  readonly state: ReplayState;
  readonly timing: 'recorded' | 'fast';
  fallback: CostModel | null;
  passthrough: { transport: ChatTransport & StreamingTransport; context: RecordContext } | null;
}

/** An attempt whose `beforeAttempt` already let it through, before its recording was looked up. */
interface HeldAttempt {
  readonly number: number;
  readonly overrides: AttemptOverrides | undefined;
}

/** The transport {@link replayCassette} returns. */
export class ReplayTransport implements ChatTransport {
  /** Replay tells each recorded attempt to the request's `beforeAttempt` / `afterAttempt`. */
  readonly reportsAttempts = true;
  /**
   * A call is matched with the `max_tokens` its first attempt's `beforeAttempt` answered (a
   * budget with `fitMaxTokens` lowering it), so it gets the recording made with that cap. False
   * only when misses pass through to a transport that reports attempts without applying them.
   */
  readonly appliesAttemptOverrides: boolean;
  /** The endpoint record the cassette was recorded against, or null. */
  readonly endpoint: RecordedEndpoint | null;
  readonly #shared: Shared;
  readonly #maxAttempts: number | null;

  /** @internal */
  constructor(shared: Shared, endpoint: RecordedEndpoint | null, maxAttempts: number | null = null) {
    this.#shared = shared;
    this.endpoint = endpoint;
    this.#maxAttempts = maxAttempts;
    const passthrough = shared.passthrough?.transport;
    this.appliesAttemptOverrides =
      passthrough === undefined ||
      passthrough.reportsAttempts !== true ||
      passthrough.appliesAttemptOverrides === true;
  }

  /** The cassette file. */
  get path(): string {
    return this.#shared.state.path;
  }

  /**
   * A cost model that prices each replayed call exactly as it was priced when
   * recorded (the cassette carries the pricing), and anything else (a pass-through
   * call, a recording without pricing) with `fallback`, today's prices.
   */
  costModel(fallback: CostModel | null = null): CostModel {
    const shared = this.#shared;
    shared.fallback = fallback;
    return {
      pricingModel: fallback?.pricingModel ?? null,
      cost: (usage: UsageEntry) => fallback?.cost(usage) ?? null,
      priceCall: (call: PricedCall) => {
        const recorded = shared.state.takePricing(call.model, call.usage);
        if (recorded !== null) return recorded as never;
        if (fallback === null) return { costUsd: null, pricedAs: null, priceSource: null, tariff: null };
        if (typeof fallback.priceCall === 'function') return fallback.priceCall(call);
        const costUsd = fallback.cost(call.usage);
        return {
          costUsd,
          pricedAs: fallback.pricingModel ?? null,
          priceSource: costUsd === null ? null : 'endpoint',
          tariff: null,
        };
      },
    };
  }

  async completeChatRaw(request: TransportRequest): Promise<unknown> {
    const found = await this.#take(request, false);
    if (found.entry === null) {
      const passthrough = this.#passthrough();
      return recordPlainCall(passthrough.context, passthrough.transport, found.onward);
    }
    const { entry } = found;
    const reply = entry.reply;
    await this.#playAttempts(entry, request, false, found.held);
    if (isFailure(reply)) throw replayedError(reply.error);
    if (isStream(reply)) throw new TypeError(`call ${entry.call} has no plain reply`);
    return structuredClone(reply.body);
  }

  async completeChat(request: TransportRequest): Promise<Record<string, unknown>> {
    return messageOf(await this.completeChatRaw(request));
  }

  /** Replays a recorded stream event by event: the same data, in the same order, byte for byte. */
  async streamChatRaw(request: TransportRequest): Promise<TransportEventStream> {
    const found = await this.#take(request, true);
    if (found.entry === null) {
      const passthrough = this.#passthrough();
      return recordStreamCall(passthrough.context, passthrough.transport, found.onward);
    }
    const { entry } = found;
    const number = await this.#playAttempts(entry, request, true, found.held);
    if (isFailure(entry.reply)) throw replayedError(entry.reply.error);
    const reply = entry.reply as RecordedStream;
    return new ReplayedStream(reply, this.#shared.timing, request, number);
  }

  /** The same cassette and its replay order; the recorded attempts are replayed as they were. */
  withMaxAttempts(attempts: number): ReplayTransport {
    return newReplayTransport(this.#shared, this.endpoint, attempts);
  }

  /** Only the cassette's path. */
  toJSON(): { cassette: string; maxAttempts: number | null } {
    return { cassette: this.path, maxAttempts: this.#maxAttempts };
  }

  /**
   * The recording that answers `request`, taken. As a live transport does before sending,
   * the first attempt's `beforeAttempt` runs first (a budget may wait, refuse, or lower
   * `max_tokens`): the request is matched as that attempt is sent, lowered cap included.
   * None left: a miss (the held attempt told it was not sent), or in pass-through mode
   * the request to send onward, whose first attempt is the held one.
   */
  async #take(
    request: TransportRequest,
    streamed: boolean,
  ): Promise<
    | { readonly entry: CassetteEntry; readonly held: HeldAttempt | null }
    | { readonly entry: null; readonly onward: TransportRequest }
  > {
    if (request.signal?.aborted) throw abortedError(request.signal);
    let held: HeldAttempt | null = null;
    if (request.beforeAttempt !== undefined) {
      // A stream reopened after a failure continues the numbering of its raw call's attempts.
      const number = (request.retryOf?.attempts ?? 0) + 1;
      held = { number, overrides: (await request.beforeAttempt(number)) ?? undefined };
    }
    const asked = withRequestOverrides(request, held?.overrides);
    const state = this.#shared.state;
    const entry = state.take(asked, streamed);
    if (entry !== null) return { entry, held };
    if (this.#shared.passthrough === null) {
      const miss = state.miss(asked, streamed);
      if (held !== null) request.afterAttempt?.(held.number, miss, false);
      throw miss;
    }
    return { entry: null, onward: this.#onward(request, held, () => state.miss(asked, streamed)) };
  }

  /** A missed request as it goes to the pass-through transport, with the attempt already held. */
  #onward(request: TransportRequest, held: HeldAttempt | null, miss: () => unknown): TransportRequest {
    if (held === null) return request;
    const transport = this.#shared.passthrough?.transport;
    if (transport?.reportsAttempts !== true) {
      // A transport that does not report its attempts is not watched here: the held one is given back.
      request.afterAttempt?.(held.number, miss(), false);
      return request;
    }
    // Its first attempt is the one the hooks let through: answered again without asking twice.
    const before = request.beforeAttempt;
    let pending = true;
    return {
      ...request,
      beforeAttempt: (attempt) => {
        if (pending && attempt === held.number) {
          pending = false;
          return held.overrides;
        }
        return before?.(attempt);
      },
    };
  }

  #passthrough(): NonNullable<Shared['passthrough']> {
    const passthrough = this.#shared.passthrough;
    if (passthrough === null) throw new TypeError('no pass-through transport');
    const inner =
      this.#maxAttempts === null
        ? passthrough.transport
        : (passthrough.transport.withMaxAttempts?.(this.#maxAttempts) ?? passthrough.transport);
    return { transport: inner, context: passthrough.context };
  }

  /**
   * Tells each recorded attempt to the request's hooks, after its recorded delay
   * with `recorded` timing; rejects with the last attempt's failure. Returns the
   * number of the attempt that got the reply (a stream's afterAttempt comes when it ends).
   */
  async #playAttempts(
    entry: CassetteEntry,
    request: TransportRequest,
    streamed: boolean,
    held: HeldAttempt | null,
  ): Promise<number> {
    // A stream reopened after a failure continues the numbering of its raw call's attempts.
    const first = request.retryOf?.attempts ?? 0;
    let previousMs = 0;
    for (const [index, attempt] of entry.attempts.entries()) {
      const number = first + index + 1;
      // The first attempt's hooks ran before its recording was looked up.
      if (index > 0 || held === null) await request.beforeAttempt?.(number);
      if (this.#shared.timing === 'recorded') await pause(attempt.ms - previousMs, request.signal);
      previousMs = attempt.ms;
      const last = index === entry.attempts.length - 1;
      if (attempt.error !== null) {
        // The call's own failure (the reply) is thrown by the caller, after the last attempt is told.
        request.afterAttempt?.(number, replayedError(attempt.error));
      } else if (last) {
        if (!streamed) request.afterAttempt?.(number, null);
        return number;
      }
    }
    return first + entry.attempts.length;
  }
}

/** A recorded stream played back: the recorded status, headers and events, then its recorded end. */
class ReplayedStream implements TransportEventStream {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly #reply: RecordedStream;
  readonly #timing: 'recorded' | 'fast';
  readonly #request: TransportRequest;
  readonly #attempt: number;
  #closed = false;

  constructor(
    reply: RecordedStream,
    timing: 'recorded' | 'fast',
    request: TransportRequest,
    attempt: number,
  ) {
    this.status = reply.status;
    this.headers = { ...reply.headers };
    this.#reply = reply;
    this.#timing = timing;
    this.#request = request;
    this.#attempt = attempt;
  }

  close(failure?: unknown): void {
    this.#end(failure ?? null);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<StreamEvent> {
    try {
      for (const recorded of this.#reply.events) {
        if (this.#closed) return;
        if (this.#timing === 'recorded') await pause(recorded.ms, this.#request.signal);
        if (this.#request.signal?.aborted) throw abortedError(this.#request.signal);
        if (this.#closed) return;
        yield 'data' in recorded
          ? { data: recorded.data, ...(recorded.event === undefined ? {} : { event: recorded.event }) }
          : { comment: recorded.comment };
      }
      if (this.#reply.end !== null) {
        const failure = replayedError(this.#reply.end);
        this.#end(failure);
        throw failure;
      }
    } finally {
      this.#end(null);
    }
  }

  #end(failure: unknown | null): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#request.afterAttempt?.(this.#attempt, failure);
  }
}

function abortedError(signal: AbortSignal): ChatError {
  return new ChatError({
    kind: 'aborted',
    message: 'the call was aborted by its signal',
    cause: signal.reason,
    retryable: false,
  });
}

/** The longest replay waits for one recorded delay: a cassette is a file from someone else. */
const MAX_PAUSE_MS = 60_000;

/** Waits (at most {@link MAX_PAUSE_MS}), ended early (rejected `aborted`) by the signal. */
function pause(recorded: number, signal: AbortSignal | undefined): Promise<void> {
  const milliseconds = Math.min(recorded, MAX_PAUSE_MS);
  if (!(milliseconds > 0)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortedError(signal as AbortSignal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, milliseconds);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * `new ReplayTransport(...)` from outside the class body: a class that names itself inside its
 * body is renamed by the bundler (`_ReplayTransport`), and the class's name is what users see.
 */
function newReplayTransport(...args: ConstructorParameters<typeof ReplayTransport>): ReplayTransport {
  return new ReplayTransport(...args);
}
