import type { PriceBook, Prices } from '@switchboard/prices';
import type { BudgetStore } from './budget-store.js';
import type { FitMaxTokens } from './fit-max-tokens.js';
import type { ScopeLimits } from './scope-limits.js';
import type { BudgetThresholdEvent } from './thresholds.js';

/** Options of {@link createBudget}. */
export interface BudgetOptions {
  /** The root scope, e.g. `{ name: 'run-42', limitUsd: 5, maxInFlight: 64 }`. */
  scope: ScopeLimits;
  /** Where the counters live; default a new {@link MemoryBudgetStore} (this process only). */
  store?: BudgetStore;
  /**
   * The budget owns `store`: its `close()` closes the store too (e.g. a `RedisBudgetStore`
   * built from a `url` just for this budget). Default false: a store given is left open
   * for its owner; a store the budget built itself is always closed with it.
   */
  ownsStore?: boolean;
  /**
   * Limits per caller role: a call whose `role` is listed also reserves in the nested scope
   * `<scope>/<role>`. A role's `fitMaxTokens` (or `false`) replaces the budget's for its calls.
   */
  roles?: Readonly<Record<string, RoleOptions>>;
  /**
   * The prices worst cases are reckoned with: the same book the calls are costed
   * with (table, code and configuration entries); a dated tariff counts at the
   * dearest band it can reach while the attempt may run. Default: the book of the
   * endpoint the budget observes (handed over by `resolveChatEndpoint`), else the
   * shipped table.
   */
  priceBook?: PriceBook;
  /** The highest prices a model's call could be billed at (instead of `priceBook`). */
  maxPricesOf?: (model: string) => Prices | null;
  /** The output cap assumed for calls without `max_tokens`: a positive integer for every model, or per model (null: none). Default: none (such calls are refused). */
  maxOutputTokens?: number | ((model: string) => number | null);
  /** The most one call of an unpriced model may cost, in USD; default: none (such calls are refused). */
  maxCostUsdOf?: (model: string) => number | null;
  /**
   * Lifetime of a reservation and slot, renewed every third of it while the attempt runs. Default 30,000 ms;
   * from 10 to 2^31 − 1 ms (about 24.8 days, the longest Node's timers hold).
   */
  leaseTtlMs?: number;
  /**
   * How long an attempt waits, at most, for an in-flight slot or for room held by calls in
   * flight before it is refused (`in_flight`, `reserved`); 0 refuses at once. The caller's
   * signal and the call's deadline (`deadlineSeconds`) end a wait sooner. Default 60,000 ms; at most
   * 2^31 − 1 ms.
   */
  slotWaitMs?: number;
  /**
   * Default true: a call whose worst case fits what is left after spend, but not while
   * calls in flight hold their reservations, waits (in order, up to `slotWaitMs`) until
   * enough of them settle, then is reserved; it is refused for `spend` only when
   * spent + its worst case > the limit. False refuses it at once (`reserved`).
   */
  waitForSettlements?: boolean;
  /**
   * Opt-in, off by default (a shorter answer can break a caller): a call whose worst case
   * does not fit what is left is sent with a lower `max_tokens` whose worst case does, down
   * to `minTokens`, instead of being refused; its record's `maxTokensLowered` says from
   * what. Only where the adapter can send the lower cap (`AttemptInfo.canLowerMaxTokens`).
   * When a call waits, is fitted or is refused: docs/budgets.md.
   */
  fitMaxTokens?: FitMaxTokens;
  /**
   * Opt-in: when the store cannot be reached, keep going on this store instead of
   * refusing (default a `MemoryBudgetStore`), within `share` (default 1; e.g. 1/8
   * for one of 8 workers) of what each scope had left when the store last answered
   * this process. Its spend is written back to the store, once, when it answers again.
   */
  fallback?: { store?: BudgetStore; share?: number };
  /**
   * What to do when a scope's ledger vanished from the store (a restart without
   * persistence, an eviction, `FLUSHDB`): `'refuse'` (default) every call with
   * reason `ledger_lost` until `resetLedger()`, or `'start-afresh'`: warn and
   * start a new ledger at once.
   */
  onLedgerLost?: 'refuse' | 'start-afresh';
  /** Where warnings go (a lease lost, a settlement retried, a capped cost); default `process.emitWarning`. */
  onWarning?: (message: string) => void;
  /**
   * The wall clock (ms since the epoch) that decides calendar windows, for the memory store the
   * budget builds (tests); default `Date.now`. A shared store's own clock decides (Redis `TIME`,
   * PostgreSQL `now()`); a `MemoryBudgetStore` given as `store` takes its own `clock` option.
   */
  clock?: () => number;
  /**
   * Limits per tenant: a call that carries a tenant (`adapter.forTenant(id)`, or the request's
   * `tenant`) also reserves in the nested scope `<scope>/<tenant>`, made on its first use with these
   * limits and window (beside its role's scope, when it has one). A tenant id equal to a role's name is
   * refused (TypeError). A process keeps only its latest tenants' scopes in memory; their figures live
   * in the store.
   */
  tenants?: Omit<ScopeLimits, 'name'>;
  /** Fractions of a limit at which `onThreshold` is called; default `[0.8, 1]`; each in (0, 1]. */
  thresholds?: readonly number[];
  /**
   * Called when a scope's spend (settled costs plus unsettled worst cases) first reaches each of
   * `thresholds` of its limit in a window: once per scope, window and threshold across every process
   * sharing the store (the store decides who calls it), also when one call passes several. Called
   * after the settlement that reached it is recorded; an error it throws is a warning, never the call's.
   */
  onThreshold?: (event: BudgetThresholdEvent) => void;
  /**
   * Opt-in, off by default: this process leases a share of each chain's headroom from the store
   * (one ordinary lease, renewed while held) and reserves and settles its calls from it locally,
   * with no round trip; the share is settled with what its calls cost when idle, when it cannot
   * serve a call (run out, its window ended, a second since it was leased), and on `idle()` and
   * `close()`. A share holds at most 64 of
   * the worst cases of the call that leased it (or `maxUsd`) and 1/16 of the headroom left; a
   * chain with a `maxInFlight` limit is not served. A process that dies leaves its share to
   * expire as any lease (counted at its worst case). docs/budgets.md, "Allotments".
   */
  allotments?: boolean | { readonly maxUsd?: number };
}

/** A role's limits (see {@link BudgetOptions.roles}) and its own `fitMaxTokens`, or `false` for none. */
export type RoleOptions = Omit<ScopeLimits, 'name'> & { readonly fitMaxTokens?: FitMaxTokens | false };
