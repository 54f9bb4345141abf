import { randomUUID } from 'node:crypto';
import type { AttemptHandle, AttemptInfo, CallObserver, CallRecord } from '@switchboard/adapter';
import { ChatError } from '@switchboard/adapter';
import { costOf, type Prices, priceOf } from '@switchboard/prices';
import { BudgetError } from './budget-error.js';
import type { AcquireResult, BudgetStore } from './budget-store.js';
import { LeaseHandle } from './lease-handle.js';
import { LeaseHeartbeat } from './lease-heartbeat.js';
import { MemoryBudgetStore } from './memory-store.js';
import { reserveNanoUsd, settleNanoUsd, usdOf } from './nano-usd.js';
import { type Chain, extend, scaled } from './scope-chain.js';
import { checkScopeLimits, type ScopeLimits, type StoredScope } from './scope-limits.js';
import { SlotQueue } from './slot-waiters.js';
import { type WorstCasePricing, worstCaseCostUsd } from './worst-case-cost.js';

/** Options of {@link createBudget}. */
export interface BudgetOptions {
  /** The root scope, e.g. `{ name: 'run-42', limitUsd: 5, maxInFlight: 64 }`. */
  scope: ScopeLimits;
  /** Where the counters live; default a new {@link MemoryBudgetStore} (this process only). */
  store?: BudgetStore;
  /** Limits per caller role: a call whose `role` is listed also reserves in the nested scope `<scope>/<role>`. */
  roles?: Readonly<Record<string, Omit<ScopeLimits, 'name'>>>;
  /** The highest prices a model's call could be billed at; default `priceOf` of `@switchboard/prices`. */
  maxPricesOf?: (model: string) => Prices | null;
  /** The output cap assumed for calls without `max_tokens`: a number for every model, or per model. Default: none (such calls are refused). */
  maxOutputTokens?: number | ((model: string) => number | null);
  /** The most one call of an unpriced model may cost, in USD; default: none (such calls are refused). */
  maxCostUsdOf?: (model: string) => number | null;
  /** Lifetime of a reservation and slot, renewed every third of it while the attempt runs. Default 30,000 ms. */
  leaseTtlMs?: number;
  /** How long an attempt waits for an in-flight slot before it is refused; 0 refuses at once. Default 60,000 ms. */
  slotWaitMs?: number;
  /**
   * Opt-in: when the store cannot be reached, keep going on this store instead of
   * refusing (e.g. a `MemoryBudgetStore`: a per-process limit), with every limit
   * multiplied by `share` (default 1; e.g. 1/8 for one of 8 workers).
   */
  fallback?: { store?: BudgetStore; share?: number };
  /** Where warnings go (a lease lost, a settlement that failed); default `process.emitWarning`. */
  onWarning?: (message: string) => void;
}

/** One scope's state, as {@link Budget.usage} reports it. */
export interface ScopeUsage {
  /** The scope's path, e.g. `run-42/judge`. */
  readonly scope: string;
  readonly limitUsd: number | null;
  readonly maxInFlight: number | null;
  /** Settled spend in USD, and exactly, in nano-dollars (1e-9 USD). */
  readonly spentUsd: number;
  readonly spentNanoUsd: number;
  /** Held by calls in flight, in USD and nano-dollars. */
  readonly reservedUsd: number;
  readonly reservedNanoUsd: number;
  /** Calls (attempts) in flight. */
  readonly inFlight: number;
}

/** What a budget and its children share. */
export interface Shared {
  readonly store: BudgetStore;
  readonly pricing: WorstCasePricing;
  readonly ttlMs: number;
  readonly slotWaitMs: number;
  readonly fallback: { readonly store: BudgetStore; readonly share: number } | null;
  readonly onWarning: (message: string) => void;
  readonly heartbeat: LeaseHeartbeat;
  /** Attempts waiting for a slot, per innermost scope path. */
  readonly queues: Map<string, SlotQueue>;
}

/** What a store answered, and which store and scope limits it was asked with (the fallback's differ). */
interface Acquired {
  readonly result: AcquireResult;
  readonly store: BudgetStore;
  readonly scopes: readonly StoredScope[];
}

const DEFAULT_TTL_MS = 30_000;
const DEFAULT_SLOT_WAIT_MS = 60_000;

/**
 * Holds spend and in-flight limits for the calls of an adapter: a `CallObserver`
 * that, before each attempt, reserves its worst-case cost and a slot in every scope
 * of its chain at once (or refuses with a {@link BudgetError} before anything is
 * sent), and settles the reservation with the call's actual cost when it ends.
 */
export class Budget implements CallObserver {
  /** The path of this budget's innermost scope, e.g. `run-42/judge`. */
  readonly scope: string;
  readonly #shared: Shared;
  readonly #chain: Chain;
  readonly #roles: Readonly<Record<string, Omit<ScopeLimits, 'name'>>>;
  readonly #roleChains = new Map<string, Chain>();

  /** @internal use {@link createBudget} */
  constructor(shared: Shared, chain: Chain, roles: Readonly<Record<string, Omit<ScopeLimits, 'name'>>>) {
    this.#shared = shared;
    this.#chain = chain;
    this.#roles = roles;
    this.scope = chain.paths.at(-1) ?? '';
  }

  /** A budget for a nested scope: its calls reserve in this budget's scopes and in `scope`, all at once. */
  child(scope: ScopeLimits): Budget {
    checkScopeLimits(scope, 'scope');
    return new Budget(this.#shared, extend(this.#chain, scope), this.#roles);
  }

  /** Reserves the attempt's worst case and a slot in every scope, waiting for a slot if need be; or throws. */
  async beforeAttempt(info: AttemptInfo): Promise<AttemptHandle> {
    const chain = this.#chainFor(info.role);
    const innermost = chain.paths.at(-1) ?? '';
    const amount = reserveNanoUsd(worstCaseCostUsd(info, this.#shared.pricing, innermost));
    const leaseId = randomUUID();
    if (info.signal?.aborted) throw abortedError(info.signal);
    const first = await this.#acquire(leaseId, chain, amount);
    if (first.result.granted) return this.#handle(leaseId, first.store, first.scopes, amount);
    this.#refuseSpend(info, chain, first, amount);
    if (this.#shared.slotWaitMs === 0) throw this.#noSlot(info, chain, first);
    const deadline = performance.now() + this.#shared.slotWaitMs;
    let queue = this.#shared.queues.get(innermost);
    if (!queue) {
      queue = new SlotQueue();
      this.#shared.queues.set(innermost, queue);
    }
    if (!(await queue.turn(info.signal))) throw abortedError(info.signal as AbortSignal);
    try {
      for (let round = 0; ; round++) {
        if (info.signal?.aborted) throw abortedError(info.signal);
        const attempt = await this.#acquire(leaseId, chain, amount);
        if (attempt.result.granted) return this.#handle(leaseId, attempt.store, attempt.scopes, amount);
        this.#refuseSpend(info, chain, attempt, amount);
        const remaining = deadline - performance.now();
        if (remaining <= 0) throw this.#noSlot(info, chain, attempt);
        await queue.pause(remaining, info.signal, round);
      }
    } finally {
      queue.leave();
    }
  }

  /** Each scope of the chain (root first, and the role's when given): limits, spend, reservations, calls in flight. */
  async usage(role?: string): Promise<ScopeUsage[]> {
    const chain = this.#chainFor(role ?? null);
    const counters = await this.#shared.store.counters(chain.scopes);
    return counters.map((counter, index) => ({
      scope: chain.paths[index] ?? '',
      limitUsd: chain.limits[index]?.limitUsd ?? null,
      maxInFlight: chain.limits[index]?.maxInFlight ?? null,
      spentUsd: usdOf(counter.spentNanoUsd),
      spentNanoUsd: counter.spentNanoUsd,
      reservedUsd: usdOf(counter.reservedNanoUsd),
      reservedNanoUsd: counter.reservedNanoUsd,
      inFlight: counter.inFlight,
    }));
  }

  /** Stops renewing leases (their attempts' settlements still run). Call when the process is done. */
  close(): void {
    this.#shared.heartbeat.stop();
  }

  #chainFor(role: string | null): Chain {
    if (role === null || !Object.hasOwn(this.#roles, role)) return this.#chain;
    let chain = this.#roleChains.get(role);
    if (!chain) {
      const limits = { ...this.#roles[role], name: role };
      checkScopeLimits(limits, `roles.${role}`);
      chain = extend(this.#chain, limits);
      this.#roleChains.set(role, chain);
    }
    return chain;
  }

  /** Throws the refusal when the store said the spend does not fit. */
  #refuseSpend(info: AttemptInfo, chain: Chain, acquired: Acquired, amount: number): void {
    const { result, scopes } = acquired;
    if (result.granted || result.reason !== 'spend') return;
    const scope = chain.paths[result.scopeIndex] ?? '';
    throw spendError(info.model, scope, scopes[result.scopeIndex]?.limitNanoUsd ?? 0, result, amount);
  }

  #noSlot(info: AttemptInfo, chain: Chain, acquired: Acquired): BudgetError {
    const { result, scopes } = acquired;
    const index = result.granted ? 0 : result.scopeIndex;
    const inFlight = result.granted ? null : result.counters.inFlight;
    const scope = chain.paths[index] ?? '';
    const maxInFlight = scopes[index]?.maxInFlight ?? null;
    return new BudgetError({
      reason: 'in_flight',
      scope,
      maxInFlight,
      inFlight,
      message: `budget scope "${scope}" refused a call of ${info.model}: ${inFlight} of ${maxInFlight} calls in flight, and no slot came free within ${this.#shared.slotWaitMs} ms`,
    });
  }

  async #acquire(leaseId: string, chain: Chain, amount: number): Promise<Acquired> {
    const { store, ttlMs, fallback } = this.#shared;
    const request = { leaseId, scopes: chain.scopes, amountNanoUsd: amount, ttlMs };
    try {
      return { result: await store.acquire(request), store, scopes: chain.scopes };
    } catch (error) {
      if (fallback === null) {
        throw new BudgetError({
          reason: 'store_unreachable',
          scope: chain.paths.at(-1) ?? null,
          message: `budget scope "${chain.paths.at(-1)}" refused the call: its store could not be reached (${messageOf(error)}); calls are refused until it answers, unless the budget has a fallback`,
          cause: error,
        });
      }
      this.#shared.onWarning(`budget store unreachable (${messageOf(error)}); using the fallback store`);
      const scopes = chain.scopes.map((scope) => scaled(scope, fallback.share));
      return { result: await fallback.store.acquire({ ...request, scopes }), store: fallback.store, scopes };
    }
  }

  #handle(
    leaseId: string,
    store: BudgetStore,
    scopes: readonly StoredScope[],
    amount: number,
  ): AttemptHandle {
    this.#shared.heartbeat.add({ leaseId, scopes, store });
    return new LeaseHandle(this.#shared, leaseId, store, scopes, amount, (record) =>
      this.#actualNanoUsd(record, amount),
    );
  }

  /** The record's cost; without one, its usage at the maximum prices; without usage, the whole reservation. */
  #actualNanoUsd(record: CallRecord, amount: number): number {
    if (typeof record.costUsd === 'number' && Number.isFinite(record.costUsd))
      return settleNanoUsd(record.costUsd);
    const estimate = costOf(this.#shared.pricing.maxPricesOf(record.model), record.usage);
    if (estimate !== null) return settleNanoUsd(estimate);
    this.#shared.onWarning(
      `a call of ${record.model} has no cost; its whole reservation is counted as spent`,
    );
    return amount;
  }
}

/** Creates a {@link Budget}, a `CallObserver` to give a `ChatAdapter` (its `observers`). */
export function createBudget(options: BudgetOptions): Budget {
  if (options === null || typeof options !== 'object')
    throw new TypeError('budget options must be an object');
  checkScopeLimits(options.scope, 'scope');
  const ttlMs = options.leaseTtlMs ?? DEFAULT_TTL_MS;
  if (!(Number.isFinite(ttlMs) && ttlMs >= 10)) {
    throw new RangeError(`leaseTtlMs must be a number of milliseconds >= 10, got ${String(ttlMs)}`);
  }
  const slotWaitMs = options.slotWaitMs ?? DEFAULT_SLOT_WAIT_MS;
  if (!(Number.isFinite(slotWaitMs) && slotWaitMs >= 0)) {
    throw new RangeError(`slotWaitMs must be a number of milliseconds >= 0, got ${String(slotWaitMs)}`);
  }
  const share = options.fallback?.share ?? 1;
  if (!(share > 0 && share <= 1))
    throw new RangeError(`fallback.share must be in (0, 1], got ${String(share)}`);
  const onWarning = options.onWarning ?? ((message: string) => process.emitWarning(message, 'BudgetWarning'));
  const shared: Shared = {
    store: options.store ?? new MemoryBudgetStore(),
    pricing: {
      maxPricesOf: options.maxPricesOf ?? ((model) => priceOf(model)),
      maxOutputTokensOf: outputTokensOf(options.maxOutputTokens),
      maxCostUsdOf: options.maxCostUsdOf ?? (() => null),
    },
    ttlMs,
    slotWaitMs,
    fallback: options.fallback ? { store: options.fallback.store ?? new MemoryBudgetStore(), share } : null,
    onWarning,
    heartbeat: new LeaseHeartbeat(ttlMs, onWarning),
    queues: new Map(),
  };
  const root: Chain = { paths: [], scopes: [], limits: [] };
  return new Budget(shared, extend(root, options.scope), options.roles ?? {});
}

function outputTokensOf(option: BudgetOptions['maxOutputTokens']): (model: string) => number | null {
  if (option === undefined) return () => null;
  if (typeof option === 'function') return option;
  if (!(Number.isInteger(option) && option >= 1)) {
    throw new RangeError(`maxOutputTokens must be a positive integer or a function, got ${String(option)}`);
  }
  return () => option;
}

function spendError(
  model: string,
  scope: string,
  limit: number,
  result: Extract<AcquireResult, { granted: false }>,
  amount: number,
): BudgetError {
  const { spentNanoUsd, reservedNanoUsd } = result.counters;
  return new BudgetError({
    reason: 'spend',
    scope,
    limitUsd: usdOf(limit),
    spentUsd: usdOf(spentNanoUsd),
    reservedUsd: usdOf(reservedNanoUsd),
    requestedUsd: usdOf(amount),
    message: `budget scope "${scope}" refused a call of ${model}: limit ${formatUsd(limit)}, spent ${formatUsd(spentNanoUsd)}, reserved ${formatUsd(reservedNanoUsd)} by calls in flight, this call needs up to ${formatUsd(amount)}`,
  });
}

function abortedError(signal: AbortSignal): ChatError {
  return new ChatError({
    kind: 'aborted',
    message: 'the call was cancelled before it was sent (while waiting for a budget slot)',
    cause: signal.reason,
  });
}

function formatUsd(nanoUsd: number): string {
  return `$${usdOf(nanoUsd).toFixed(6)}`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
