import { randomUUID } from 'node:crypto';
import type { AttemptHandle, AttemptInfo, CallObserver } from '@switchboard/adapter';
import type { PriceBook } from '@switchboard/prices';
import { type Allotments, sharesOf } from './allotments.js';
import { BudgetError } from './budget-error.js';
import type { BudgetOptions, RoleOptions } from './budget-options.js';
import {
  cancelled,
  closedError,
  fitsOnceSettled,
  MAX_WINDOW_TRIES,
  messageOf,
  misconfigured,
  spendError,
  storeTimedOut,
  tooDear,
  unreachable,
  windowsMoving,
} from './budget-refusals.js';
import type { AcquireRequest, AcquireResult, BudgetStore, ScopeCounters } from './budget-store.js';
import { AttemptAsk, checkFitMaxTokens, type FitMaxTokens } from './fit-max-tokens.js';
import { checkKnownKeys } from './known-keys.js';
import { LeaseHandle } from './lease-handle.js';
import { MAX_CALL_NANO_USD, reserveNanoUsd, usdOf } from './nano-usd.js';
import { addRefusalListener, hasRefusalListeners, toldOfRefusals } from './refusal-listeners.js';
import { type Chain, extend } from './scope-chain.js';
import type { ScopeLimits, StoredScope } from './scope-limits.js';
import { isoWindow, retryAfterMsOf, scopesAt } from './scope-windows.js';
import { type Shared, sharedOf } from './shared.js';
import { SlotQueue } from './slot-waiters.js';
import { StoreWaitAborted, untilAborted } from './store-wait.js';
import { Tenants } from './tenants.js';
import { timeoutOf, within } from './within-timeout.js';
import { worstCaseOf } from './worst-case-cost.js';

export type { BudgetOptions } from './budget-options.js';

/** One scope's state, as {@link Budget.usage} reports it. */
export interface ScopeUsage {
  /** The scope's path, e.g. `run-42/judge`. */
  readonly scope: string;
  readonly limitUsd: number | null;
  readonly maxInFlight: number | null;
  /** Spend in USD, and exactly, in nano-dollars (1e-9 USD): settled costs plus unsettled worst cases. */
  readonly spentUsd: number;
  readonly spentNanoUsd: number;
  /** Held by calls in flight, in USD and nano-dollars. */
  readonly reservedUsd: number;
  readonly reservedNanoUsd: number;
  /** Calls (attempts) in flight. */
  readonly inFlight: number;
  /** The part of the spend that is an upper bound: calls whose cost is unknown, counted at their worst case. */
  readonly unsettledUsd: number;
  /** How many calls are counted at their worst case (an expired lease, an attempt that may have been billed). */
  readonly unsettledCalls: number;
  /** The scope's current calendar window (ISO instants, `end` exclusive), or null for a scope without one. */
  readonly window: { readonly start: string; readonly end: string } | null;
}

/** What a store answered, and which store and scope limits it was asked with (the fallback's differ). */
interface Acquired {
  readonly leaseId: string;
  readonly result: AcquireResult;
  readonly store: BudgetStore;
  readonly scopes: readonly StoredScope[];
  /** The chain's scopes as the budget's own store keys them (each windowed scope in the window asked). */
  readonly storeScopes: readonly StoredScope[];
}

/**
 * Holds spend and in-flight limits for the calls of an adapter: a `CallObserver`
 * that, before each attempt, reserves its worst-case cost and a slot in every scope
 * of its chain at once (or refuses with a {@link BudgetError} before anything is
 * sent), and settles the reservation with the call's actual cost when it ends.
 * An attempt whose cost is unknown (its lease expired, or it failed after its
 * request may have reached the provider) counts at its worst case, as unsettled.
 */
export class Budget implements CallObserver {
  /** The path of this budget's innermost scope, e.g. `run-42/judge`. */
  readonly scope: string;
  readonly #shared: Shared;
  readonly #chain: Chain;
  readonly #roles: ReadonlyMap<string, Chain>;
  readonly #roleOptions: Readonly<Record<string, RoleOptions>>;
  /** The scopes of the calls' tenants (`tenants`), or null. */
  readonly #tenants: Tenants | null;
  // Per role that has its own: its fitMaxTokens, or null (`false`: its calls are not fitted).
  readonly #roleFits = new Map<string, FitMaxTokens | null>();
  /** The shares calls reserve from (`allotments`), or null. */
  readonly #shares: Allotments | null;

  /** @internal use {@link createBudget} */
  constructor(shared: Shared, chain: Chain, roles: Readonly<Record<string, RoleOptions>>) {
    this.#shared = shared;
    this.#chain = chain;
    this.#roleOptions = roles;
    this.#roles = new Map(
      Object.entries(roles).map(([role, options]) => {
        if (options === null || typeof options !== 'object')
          throw new TypeError(`roles.${role} must be an object`);
        checkKnownKeys(options, ['limitUsd', 'maxInFlight', 'window', 'fitMaxTokens'], `roles.${role}`);
        const { fitMaxTokens, ...limits } = options;
        if (fitMaxTokens !== undefined)
          this.#roleFits.set(role, checkFitMaxTokens(fitMaxTokens, `roles.${role}.fitMaxTokens`));
        return [role, extend(chain, { ...limits, name: role }, `roles.${role}`)];
      }),
    );
    this.scope = chain.paths.at(-1) ?? '';
    this.#tenants = shared.tenants === null ? null : new Tenants(shared.tenants, new Set(this.#roles.keys()));
    this.#shares = sharesOf(shared);
  }

  /** A budget for a nested scope: its calls reserve in this budget's scopes and in `scope`, all at once. */
  child(scope: ScopeLimits): Budget {
    return newBudget(this.#shared, extend(this.#chain, scope, 'scope'), this.#roleOptions);
  }

  /** The names of the roles given to `createBudget` (`roles`), each with its own scope `<scope>/<role>`. */
  get roles(): readonly string[] {
    return [...this.#roles.keys()];
  }

  /**
   * Calls `listener` with every refusal of this budget and the budgets it shares a store with
   * (its children, their roles): the {@link BudgetError} the call is rejected with, told just
   * before. For logs and metrics (`budgetMetrics` of `@switchboard/telemetry` counts them); it
   * must return at once, and an error it throws is ignored. Returns a function that removes it.
   */
  onRefusal(listener: (error: BudgetError) => void): () => void {
    return addRefusalListener(this.#shared, listener);
  }

  /**
   * Reserves the attempt's worst case and a slot in every scope, waiting for a slot if need be; or rejects.
   * A store that answers at once (the in-memory one) grants at once: the handle comes back without a promise.
   */
  beforeAttempt(info: AttemptInfo): AttemptHandle | Promise<AttemptHandle> {
    // No closure on the hot path unless someone listens for refusals.
    if (!hasRefusalListeners(this.#shared)) return this.#reserve(info);
    return toldOfRefusals(this.#shared, () => this.#reserve(info));
  }

  #reserve(info: AttemptInfo): AttemptHandle | Promise<AttemptHandle> {
    let chain: Chain;
    let ask: AttemptAsk;
    try {
      chain = this.#chainFor(info.role, info.tenant ?? null);
      if (this.#shared.closed) throw closedError(chain);
      ask = this.#askFor(info, chain);
    } catch (error) {
      return Promise.reject(error);
    }
    const line = this.#shared.queues.get(chain.paths.at(-1) ?? '');
    if (this.#shares !== null) {
      // Served by this process's share of the chain's headroom when it can; else the direct way.
      const local = this.#shares.take(chain, ask.amount, line !== undefined && line.waiting > 0);
      if (local !== null) {
        if (!isThenable(local)) return local;
        return this.#asking(local.then((handle) => handle ?? this.#direct(info, chain, ask)));
      }
    }
    return this.#direct(info, chain, ask);
  }

  /** A call reserved in the store itself: at once, or after waiting in line. */
  #direct(info: AttemptInfo, chain: Chain, ask: AttemptAsk): AttemptHandle | Promise<AttemptHandle> {
    // Calls already waiting in this chain go first: a newcomer joins the line behind them,
    // unless what the store last said shows it cannot fit even with nothing in flight.
    const line = this.#shared.queues.get(chain.paths.at(-1) ?? '');
    if (line !== undefined && line.waiting > 0) {
      const last = line.lastRefusal;
      const limit = last === null ? null : (chain.scopes[last.scopeIndex]?.limitNanoUsd ?? null);
      if (last !== null && limit !== null && last.counters.spentNanoUsd + ask.amount > limit) {
        // Fitted to the spend left, it waits in line as any call; else it cannot fit even then.
        if (!ask.fitTo(limit - last.counters.spentNanoUsd)) {
          const scope = chain.paths[last.scopeIndex] ?? '';
          const retryAfterMs = retryAfterMsOf(chain, last.scopeIndex, this.#shared.clock.now());
          return Promise.reject(spendError(info.model, scope, limit, last, ask, 'spend', '', retryAfterMs));
        }
      }
      return this.#asking(this.#waitOrRefuse(info, chain, ask, null));
    }
    const first = this.#acquire(chain, ask.amount, info);
    if (!isThenable(first)) {
      if (first.result.granted) return this.#handle(first, chain, ask);
      return this.#asking(this.#waitOrRefuse(info, chain, ask, first));
    }
    // A grant, the common answer, goes straight to its handle; anything else waits or is refused.
    return this.#asking(
      first.then((acquired) =>
        acquired.result.granted
          ? this.#handle(acquired, chain, ask)
          : this.#waitOrRefuse(info, chain, ask, acquired),
      ),
    );
  }

  /** An acquisition under way, known to `close()` until it ends (granted or refused). */
  #asking(answer: Promise<AttemptHandle>): Promise<AttemptHandle> {
    const { asking } = this.#shared;
    const ended: Promise<void> = answer.then(
      () => {
        asking.delete(ended);
      },
      () => {
        asking.delete(ended);
      },
    );
    asking.add(ended);
    return answer;
  }

  /**
   * The attempt's worst case, and how it may be fitted; throws when it is too dear or the
   * call was cancelled.
   */
  #askFor(info: AttemptInfo, chain: Chain): AttemptAsk {
    const innermost = chain.paths.at(-1) ?? '';
    const worst = worstCaseOf(info, this.#shared.pricing, innermost);
    const amount = reserveNanoUsd(worst.usd);
    if (amount > MAX_CALL_NANO_USD) throw tooDear(info.model, innermost, worst.usd);
    if (info.signal?.aborted) throw cancelled(info.signal);
    const fit =
      info.role !== null && this.#roleFits.has(info.role) ? this.#roleFits.get(info.role) : undefined;
    // Fitted only where the adapter sends the lower cap: else the reservation would not bound the call.
    const fitting =
      info.canLowerMaxTokens === true ? (fit === undefined ? this.#shared.fitMaxTokens : fit) : null;
    return new AttemptAsk(worst, amount, fitting);
  }

  /**
   * After a store refused `acquired` for money: fits the ask to the room left and tries
   * again, while that helps (each fit lowers the cap; another process may take the room
   * first). `free`: fit to what is free now (spend and reservations), else to the spend
   * left, when the call is out of money, leaving calls blocked only by reservations to
   * wait at their own cap. Answers the last try.
   */
  async #fitting(
    info: AttemptInfo,
    chain: Chain,
    ask: AttemptAsk,
    acquired: Acquired,
    free: boolean,
  ): Promise<Acquired> {
    let last = acquired;
    for (let tries = 0; tries < MAX_FIT_TRIES && !last.result.granted && ask.fits; tries += 1) {
      const { result, scopes } = last;
      if (result.reason !== 'spend' && result.reason !== 'reserved') break;
      const limit = scopes[result.scopeIndex]?.limitNanoUsd ?? null;
      if (limit === null) break;
      const { spentNanoUsd, reservedNanoUsd } = result.counters;
      const outOfMoney = spentNanoUsd + ask.amount > limit;
      const toFree = free || !this.#shared.waitForSettlements;
      if (!outOfMoney && !toFree) break;
      if (!ask.fitTo(limit - spentNanoUsd - (toFree ? reservedNanoUsd : 0))) break;
      last = await this.#acquire(chain, ask.amount, info);
    }
    return last;
  }

  /**
   * After the first try (or none, when others already wait): granted, or refused, or waits
   * in line for a slot or for room held by calls in flight, until granted, refused for a
   * reason waiting cannot help, `slotWaitMs` passed, or the call's signal (its caller's, or
   * its deadline's) aborted.
   */
  async #waitOrRefuse(
    info: AttemptInfo,
    chain: Chain,
    ask: AttemptAsk,
    firstTry: Acquired | null,
  ): Promise<AttemptHandle> {
    const innermost = chain.paths.at(-1) ?? '';
    const { slotWaitMs } = this.#shared;
    const first = firstTry === null ? null : await this.#fitting(info, chain, ask, firstTry, false);
    if (first !== null) {
      if (first.result.granted) return this.#handle(first, chain, ask);
      this.#refuseUnlessWaiting(info, chain, first, ask);
      if (slotWaitMs === 0) return this.#lastChance(info, chain, ask, first);
    }
    if (this.#shared.closed) throw closedError(chain);
    const deadline = performance.now() + slotWaitMs;
    let queue = this.#shared.queues.get(innermost);
    if (!queue) {
      queue = new SlotQueue();
      this.#shared.queues.set(innermost, queue);
    }
    if (first !== null && !first.result.granted) queue.lastRefusal = first.result;
    if (!(await queue.turn(info.signal))) {
      // No turn: the budget was closed, or the call's signal aborted.
      this.#forgetIdle(innermost, queue);
      if (this.#shared.closed) throw closedError(chain);
      throw cancelled(info.signal as AbortSignal);
    }
    try {
      for (let round = 0; ; round++) {
        if (this.#shared.closed) throw closedError(chain);
        if (info.signal?.aborted) throw cancelled(info.signal);
        const attempt = await this.#fitting(
          info,
          chain,
          ask,
          await this.#acquire(chain, ask.amount, info),
          false,
        );
        if (attempt.result.granted) return this.#handle(attempt, chain, ask);
        this.#refuseUnlessWaiting(info, chain, attempt, ask);
        if (!attempt.result.granted) queue.lastRefusal = attempt.result;
        const remaining = deadline - performance.now();
        if (remaining <= 0) return this.#lastChance(info, chain, ask, attempt);
        await queue.pause(remaining, info.signal, round);
      }
    } finally {
      queue.leave();
      this.#forgetIdle(innermost, queue);
    }
  }

  /** A line nobody waits in is dropped: a budget of many tenants keeps only the lines in use. */
  #forgetIdle(innermost: string, queue: SlotQueue): void {
    if (queue.waiting === 0 && this.#shared.queues.get(innermost) === queue)
      this.#shared.queues.delete(innermost);
  }

  /** A wait that ended in vain: fitted to what is free now, when it may be; else refused. */
  async #lastChance(
    info: AttemptInfo,
    chain: Chain,
    ask: AttemptAsk,
    acquired: Acquired,
  ): Promise<AttemptHandle> {
    const last = await this.#fitting(info, chain, ask, acquired, true);
    if (last.result.granted) return this.#handle(last, chain, ask);
    throw this.#waitedInVain(info, chain, last, ask);
  }

  /**
   * Each scope of the chain (root first, the role's when given, then the tenant's when the budget
   * has `tenants`): limits, spend
   * (unsettled worst cases included), reservations, calls in flight. Throws a
   * {@link BudgetError} `ledger_lost` when a scope's ledger vanished from the store.
   */
  async usage(role?: string | null, tenant?: string): Promise<ScopeUsage[]> {
    const chain = this.#chainFor(role ?? null, tenant ?? null);
    const { store, clock } = this.#shared;
    // A windowed scope's current window is the store's: its clock read (one round trip on a shared store).
    if (chain.windows.some((rule) => rule !== null) && store.clockMs !== undefined)
      clock.learn(await store.clockMs());
    const scopes = scopesAt(chain, clock.now());
    const stored = await store.counters(scopes);
    // This process's shares show as its calls (spent, in flight), not as one reservation.
    const counters = this.#shares === null ? stored : this.#shares.adjust(scopes, stored);
    const lost = counters.findIndex((counter) => counter.ledgerLost === true);
    if (lost >= 0) throw this.#ledgerLost(chain, lost, 'its usage was asked');
    return counters.map((counter, index) => usageOf(chain, index, counter, scopes[index]));
  }

  /**
   * Starts a new ledger for this budget's scopes after a loss (`ledger_lost`),
   * keeping what the store holds now: the code's explicit decision that the spend
   * recorded before is gone. Other processes adopt the new ledger.
   */
  async resetLedger(): Promise<void> {
    const { store, onWarning } = this.#shared;
    const now = this.#shared.clock.now();
    const scopes = [this.#chain, ...this.#roles.values()].map((chain) => scopesAt(chain, now));
    for (const chainScopes of scopes) await store.resetLedger?.(chainScopes);
    onWarning(
      `budget scope "${this.scope}": a new ledger was started; spend recorded before the loss is gone`,
    );
  }

  /**
   * Resolves true when every settlement owed so far is recorded by its store (at once with
   * nothing pending; a refused call owes none; with `allotments`, every share with no call in
   * flight is settled first), or false once `timeoutMs` passed first
   * (default `Infinity`, no limit; else at most 2^31 − 1 ms). Nothing is given up: what is pending stays in line.
   */
  async idle(options: { timeoutMs?: number } = {}): Promise<boolean> {
    const timeoutMs = timeoutOf(options, 'idle', Number.POSITIVE_INFINITY);
    // Shares with no call in flight are settled: what their calls cost is owed to the store now.
    const recorded = (this.#shares?.flush() ?? Promise.resolve())
      .then(() => Promise.all([...this.#shared.settlements.values()].map((queue) => queue.idle())))
      .then(() => this.#shared.thresholds.idle())
      .then(() => true);
    return within(recorded, timeoutMs);
  }

  /**
   * Refuses every call from then on, and the calls still waiting for a slot or for room at once
   * (`store_unreachable`, saying the budget was closed; a lease the store grants after it is
   * released). Settles every share (`allotments`; its calls still in flight at their worst case).
   * Stops renewing leases and waits up to `timeoutMs` (default 10,000; at most 2^31 − 1, or `Infinity`) for the
   * pending settlements to be recorded; what is still pending then is given up
   * with a warning naming its amount. Then closes the stores the budget owns: the
   * ones it built, and the one it was given with `ownsStore: true`. Closes the
   * whole budget tree (children share the store). Resolves true when everything
   * was recorded.
   */
  async close(options: { timeoutMs?: number } = {}): Promise<boolean> {
    const timeoutMs = timeoutOf(options, 'close', 10_000);
    const started = performance.now();
    const shared = this.#shared;
    shared.closed = true;
    for (const queue of shared.queues.values()) queue.close();
    // Acquisitions under way end first (a lease granted now is released): then what they owe is awaited too.
    const asked = await within(Promise.all(shared.asking), timeoutMs);
    // Every share is settled now, its calls still in flight at their worst case.
    if (this.#shares !== null)
      await within(this.#shares.close(), Math.max(0, timeoutMs - (performance.now() - started)));
    const flushed = await this.idle({ timeoutMs: Math.max(0, timeoutMs - (performance.now() - started)) });
    shared.heartbeat.stop();
    for (const queue of shared.settlements.values()) {
      const left = queue.abandon();
      if (left.length === 0) continue;
      const total = left.reduce((sum, pending) => sum + pending.settlement.actualNanoUsd, 0);
      shared.onWarning(
        `budget closed with ${left.length} settlement(s) the store never recorded (${usdOf(total)} USD): their leases count at their worst case when they expire`,
      );
    }
    await shared.closeOwnedStores();
    return asked && flushed;
  }

  /**
   * Prices worst cases with `book` when the budget was given no prices of its own.
   * `resolveChatEndpoint` calls it with the endpoint's book for a budget among its
   * observers, so reservations and records use one price source. Returns whether
   * the book was adopted.
   */
  adoptPriceBook(book: PriceBook): boolean {
    return this.#shared.adoptPriceBook(book);
  }

  /** The chain a call reserves in: the budget's scopes, its role's when listed, its tenant's (`tenants`). */
  #chainFor(role: string | null, tenant: string | null = null): Chain {
    const listed = role === null ? undefined : this.#roles.get(role);
    const chain = listed ?? this.#chain;
    if (tenant === null || this.#tenants === null) return chain;
    return this.#tenants.chainOf(this.#chain, chain, listed === undefined ? null : role, tenant);
  }

  /**
   * Throws the refusal when waiting cannot help: the spend does not fit even with nothing
   * in flight, the ledger is gone, the lease had ended; or the call is blocked only by
   * reservations and the budget does not wait for settlements. Returns when it may wait.
   */
  #refuseUnlessWaiting(info: AttemptInfo, chain: Chain, acquired: Acquired, ask: AttemptAsk): void {
    const { result, scopes } = acquired;
    if (result.granted || result.reason === 'in_flight') return;
    if (result.reason === 'ledger_lost')
      throw this.#ledgerLost(chain, result.scopeIndex, `a call of ${info.model}`);
    if (result.reason === 'ended') {
      throw new BudgetError({
        reason: 'store_unreachable',
        scope: chain.paths.at(-1) ?? null,
        message: `budget scope "${chain.paths.at(-1)}" refused a call of ${info.model}: the store says its lease had already ended`,
      });
    }
    const scope = chain.paths[result.scopeIndex] ?? '';
    const limit = scopes[result.scopeIndex]?.limitNanoUsd ?? 0;
    // Out of money (a store of another make may answer `spend` for both: the counters tell).
    if (result.counters.spentNanoUsd + ask.amount > limit) {
      const retryAfterMs = retryAfterMsOf(chain, result.scopeIndex, result.nowMs ?? this.#shared.clock.now());
      throw spendError(info.model, scope, limit, result, ask, 'spend', '', retryAfterMs);
    }
    if (!this.#shared.waitForSettlements) {
      const given = fitsOnceSettled('the budget does not wait for them (waitForSettlements: false)');
      throw spendError(info.model, scope, limit, result, ask, 'reserved', given);
    }
  }

  /** The refusal of a call that waited `slotWaitMs` (or could not wait) for a slot or for room. */
  #waitedInVain(info: AttemptInfo, chain: Chain, acquired: Acquired, ask: AttemptAsk): BudgetError {
    const { result, scopes } = acquired;
    if (!result.granted && result.reason !== 'in_flight') {
      const scope = chain.paths[result.scopeIndex] ?? '';
      const limit = scopes[result.scopeIndex]?.limitNanoUsd ?? 0;
      const given = fitsOnceSettled(
        `not enough of them settled within ${this.#shared.slotWaitMs} ms (slotWaitMs)`,
      );
      return spendError(info.model, scope, limit, result, ask, 'reserved', given);
    }
    return this.#noSlot(info, chain, acquired);
  }

  #ledgerLost(chain: Chain, index: number, what: string): BudgetError {
    const scope = chain.paths[index] ?? '';
    return new BudgetError({
      reason: 'ledger_lost',
      scope,
      message: `budget scope "${scope}" refused ${what}: its ledger in the store is gone (the marker this process saw has vanished), likely a Redis restart without persistence, an eviction (maxmemory-policy) or a FLUSHDB; the spend recorded before is lost, so calls are refused until the code calls resetLedger() (or makes the budget with onLedgerLost: 'start-afresh')`,
    });
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

  #acquire(chain: Chain, amount: number, info: AttemptInfo): Acquired | Promise<Acquired> {
    // A new id per try: a try whose answer was lost is released under its id, which is never reused.
    const leaseId = randomUUID();
    const shared = this.#shared;
    const { store } = shared;
    const scopes = scopesAt(chain, shared.clock.now());
    const request = { leaseId, scopes, amountNanoUsd: amount, ttlMs: shared.ttlMs };
    if (shared.fallback !== null) return this.#acquireAsync(chain, info, request);
    let answer: AcquireResult | Promise<AcquireResult>;
    try {
      answer = store.acquire(request);
    } catch (error) {
      answer = Promise.reject(error);
    }
    if (
      isThenable(answer) ||
      (!answer.granted && answer.reason === 'window') ||
      (!answer.granted && answer.reason === 'ledger_lost' && shared.onLedgerLost === 'start-afresh')
    )
      return this.#acquireAsync(chain, info, request, answer);
    shared.storeAnswered(chain, answer);
    return { leaseId, result: answer, store, scopes, storeScopes: scopes };
  }

  /** {@link Budget.#acquire} when the store's answer has to be waited for, retried or replaced by the fallback's. */
  async #acquireAsync(
    chain: Chain,
    { model, signal }: AttemptInfo,
    asking: AcquireRequest,
    asked?: AcquireResult | Promise<AcquireResult>,
  ): Promise<Acquired> {
    let request = asking;
    const { leaseId } = request;
    const shared = this.#shared;
    const { store, fallback } = shared;
    if (fallback !== null && shared.draining()) {
      // A store that now says it is misconfigured is not hidden behind the fallback while it drains.
      const misconfiguration = await shared.adoptFallbackLeases();
      if (misconfiguration !== null) throw misconfigured(chain, misconfiguration);
    }
    if (fallback !== null && shared.draining()) {
      const scopes = shared.fallbackScopes(chain);
      if (scopes !== null) {
        return {
          leaseId,
          result: await fallback.store.acquire({ ...request, scopes }),
          store: fallback.store,
          scopes,
          storeScopes: request.scopes,
        };
      }
    }
    let result: AcquireResult;
    try {
      // Waited for until the call's signal aborts (its deadline), however long the store takes.
      result = await untilAborted(asked ?? store.acquire(request), signal);
      // The store's clock is in other windows than this process guessed: asked again with its.
      for (let tries = 0; !result.granted && result.reason === 'window'; tries += 1) {
        if (tries === MAX_WINDOW_TRIES || result.nowMs === undefined) throw windowsMoving(chain, result);
        shared.clock.learn(result.nowMs);
        request = { ...request, scopes: scopesAt(chain, result.nowMs) };
        result = await untilAborted(store.acquire(request), signal);
      }
    } catch (error) {
      if (error instanceof BudgetError) throw error;
      if (error instanceof StoreWaitAborted) {
        // The call's deadline (or its caller) while the store was still answering: released once it has.
        const release = { leaseId, scopes: request.scopes, settlement: { actualNanoUsd: 0 }, release: true };
        error.releaseWhenAnswered(() => shared.settle(store, release));
        throw cancelled(error.signal);
      }
      // The command may still run after this failure (a lost reply, a queued command): the
      // lease is released behind it, in order, so it can never hold a reservation nobody settles.
      const configuration = (error as { configuration?: unknown }).configuration === true;
      // A release, not a settlement owed: idle() and close() do not wait for it. A store
      // misconfigured (a Cluster node as a url) ran nothing, and is written nothing; nor is one
      // that knows the acquisition changed nothing (a server unreachable, a transaction rolled back).
      const ranNothing = (error as { ranNothing?: unknown }).ranNothing === true;
      if (!configuration && !ranNothing) {
        shared.settle(store, {
          leaseId,
          scopes: request.scopes,
          settlement: { actualNanoUsd: 0 },
          release: true,
        });
      }
      if (configuration) throw misconfigured(chain, error);
      // A store that answers but took too long (a lock held elsewhere): a timeout, as a deadline is.
      if ((error as { timedOut?: unknown }).timedOut === true) throw storeTimedOut(chain, error);
      if (fallback === null) throw unreachable(chain, error);
      const scopes = shared.fallbackScopes(chain);
      if (scopes === null) {
        throw unreachable(
          chain,
          error,
          'the fallback cannot tell what is left, as the store never answered this process for this scope',
        );
      }
      shared.onWarning(`budget store unreachable (${messageOf(error)}); using the fallback store`);
      return {
        leaseId,
        result: await fallback.store.acquire({ ...request, scopes }),
        store: fallback.store,
        scopes,
        storeScopes: request.scopes,
      };
    }
    if (!result.granted && result.reason === 'ledger_lost' && shared.onLedgerLost === 'start-afresh') {
      await store.resetLedger?.(request.scopes);
      shared.onWarning(
        `budget scope "${chain.paths[result.scopeIndex]}": its ledger in the store was gone (a restart without persistence, an eviction or a FLUSHDB); a new one was started, as onLedgerLost is 'start-afresh' (a call of ${model})`,
      );
      result = await store.acquire(request);
    }
    shared.storeAnswered(chain, result);
    return { leaseId, result, store, scopes: request.scopes, storeScopes: request.scopes };
  }

  #handle(acquired: Acquired, chain: Chain, ask: AttemptAsk): AttemptHandle {
    const { leaseId, store, scopes, storeScopes } = acquired;
    if (this.#shared.closed) {
      // Granted after close(): never used, so released (a settlement close() waits for), and refused.
      void this.#shared.settle(store, { leaseId, scopes, settlement: { actualNanoUsd: 0, leased: true } });
      throw closedError(chain);
    }
    const amount = ask.amount;
    this.#shared.heartbeat.add({ leaseId, scopes, store });
    // A fallback lease's spend is written back to the store under its own id, once.
    const writeBack = store === this.#shared.store ? null : storeScopes;
    if (writeBack !== null) this.#shared.fallbackLeaseStarted(`${leaseId}:fallback`, writeBack, amount);
    // The spend the store reported may have grown with no settlement (leases expired at their worst case).
    else if (acquired.result.granted)
      this.#shared.thresholds.afterGrant(store, scopes, chain.paths, acquired.result.counters);
    return new LeaseHandle(
      this.#shared,
      { leaseId, store, scopes, amount, writeBack, paths: chain.paths },
      { maxTokens: ask.lowered ? ask.cap : null, budgets: chain.charged },
    );
  }
}

/** Creates a {@link Budget}, a `CallObserver` to give a `ChatAdapter` (its `observers`). Checks every option now. */
export function createBudget(options: BudgetOptions): Budget {
  const shared = sharedOf(options);
  const root: Chain = { paths: [], scopes: [], limits: [], windows: [], charged: [] };
  return new Budget(shared, extend(root, options.scope, 'scope'), options.roles ?? {});
}

function usageOf(
  chain: Chain,
  index: number,
  counter: ScopeCounters,
  scope: StoredScope | undefined,
): ScopeUsage {
  return {
    scope: chain.paths[index] ?? '',
    limitUsd: chain.limits[index]?.limitUsd ?? null,
    maxInFlight: chain.limits[index]?.maxInFlight ?? null,
    spentUsd: usdOf(counter.spentNanoUsd),
    spentNanoUsd: counter.spentNanoUsd,
    reservedUsd: usdOf(counter.reservedNanoUsd),
    reservedNanoUsd: counter.reservedNanoUsd,
    inFlight: counter.inFlight,
    unsettledUsd: usdOf(counter.unsettledNanoUsd),
    unsettledCalls: counter.unsettledCalls,
    window: isoWindow(scope?.window),
  };
}

/** How many times one attempt is fitted to a store's refusal at most (each fit lowers its cap). */
const MAX_FIT_TRIES = 8;

function isThenable<T>(value: T | PromiseLike<unknown>): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

/**
 * `new Budget(...)` from outside the class body: a class that names itself inside its
 * body is renamed by the bundler (`_Budget`), and the class's name is what users see.
 */
function newBudget(...args: ConstructorParameters<typeof Budget>): Budget {
  return new Budget(...args);
}
