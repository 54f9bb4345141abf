import { ChatError } from '@switchboard/adapter';

/** Why a budget refused a call. */
export type BudgetRefusal =
  /**
   * The call's worst-case cost does not fit a scope's spend limit even with nothing in
   * flight: spent (settled costs plus unsettled worst cases) + its worst case > limit.
   */
  | 'spend'
  /**
   * The call fits what is left after spend, but not while calls in flight hold their
   * reservations, and it did not wait for them to settle (`waitForSettlements: false`,
   * `slotWaitMs: 0`) or no room came free within `slotWaitMs`.
   */
  | 'reserved'
  /** No in-flight slot came free in time (or waiting was not allowed). */
  | 'in_flight'
  /** The model has no price and no configured maximum cost. */
  | 'unpriced'
  /** The call has no output cap and the budget no configured maximum output. */
  | 'uncapped'
  /**
   * The store (Redis, PostgreSQL) could not be reached, and no fallback could be used; also every
   * call of a budget after its `close()` (its store closed or about to be), and every call still
   * waiting for a slot or for room when it was closed: the message says the budget was closed.
   */
  | 'store_unreachable'
  /**
   * The store answered, but it is not set up as the budget needs (a `url` or a plain
   * client naming one node of a Redis Cluster): no fallback is used, as waiting or
   * counting in memory would only hide it; calls are refused until the configuration is fixed.
   */
  | 'store_misconfigured'
  /**
   * The scope's ledger vanished from the store since this process saw it (a Redis
   * restart without persistence, an eviction, a `FLUSHDB`): its spend is unknown,
   * so calls are refused until the code calls `resetLedger()`.
   */
  | 'ledger_lost';

/** Details of a {@link BudgetError}. */
export interface BudgetErrorDetails {
  readonly reason: BudgetRefusal;
  readonly message: string;
  /** The refusing scope's path, e.g. `run-42/judge`, or null when no scope was asked. */
  readonly scope: string | null;
  readonly limitUsd?: number | null;
  readonly spentUsd?: number | null;
  readonly reservedUsd?: number | null;
  readonly requestedUsd?: number | null;
  readonly maxInFlight?: number | null;
  readonly inFlight?: number | null;
  readonly retryAfterMs?: number | null;
  readonly cause?: unknown;
}

/**
 * A budget refused a call before anything was sent: a `ChatError` (of `@switchboard/adapter`) of kind
 * `budget` (never retryable) that says which scope, its limit, what is spent and
 * what is reserved.
 */
export class BudgetError extends ChatError {
  override readonly name: string = 'BudgetError';
  /** Why the call was refused. */
  readonly reason: BudgetRefusal;
  /** The refusing scope's path, or null. */
  readonly scope: string | null;
  /** The scope's spend limit in USD, or null. */
  readonly limitUsd: number | null;
  /** Settled spend of the scope in USD when it refused, or null. */
  readonly spentUsd: number | null;
  /** Held by calls in flight in the scope, in USD, or null. */
  readonly reservedUsd: number | null;
  /** This call's worst-case cost in USD, or null. */
  readonly requestedUsd: number | null;
  /** The scope's in-flight limit, or null. */
  readonly maxInFlight: number | null;
  /** Calls in flight in the scope when it refused, or null. */
  readonly inFlight: number | null;
  /**
   * For `spend` in a scope with a calendar window: milliseconds until the window ends (on the
   * clock of the store that decided), when a new window starts from $0; null otherwise.
   */
  readonly retryAfterMs: number | null;

  constructor(details: BudgetErrorDetails) {
    super({ kind: 'budget', message: details.message, cause: details.cause, retryable: false });
    this.reason = details.reason;
    this.scope = details.scope;
    this.limitUsd = details.limitUsd ?? null;
    this.spentUsd = details.spentUsd ?? null;
    this.reservedUsd = details.reservedUsd ?? null;
    this.requestedUsd = details.requestedUsd ?? null;
    this.maxInFlight = details.maxInFlight ?? null;
    this.inFlight = details.inFlight ?? null;
    this.retryAfterMs = details.retryAfterMs ?? null;
  }
}
