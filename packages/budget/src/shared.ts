import { PriceBook } from '@switchboard/prices';
import { type AllotmentSettings, checkAllotments } from './allotment-options.js';
import type { BudgetOptions } from './budget-options.js';
import type { AcquireResult, BudgetStore } from './budget-store.js';
import { checkDurationMs } from './duration-ms.js';
import { checkFitMaxTokens, type FitMaxTokens } from './fit-max-tokens.js';
import { checkKnownKeys } from './known-keys.js';
import { LeaseHeartbeat } from './lease-heartbeat.js';
import { MemoryBudgetStore } from './memory-store.js';
import { RecentMap } from './recent-map.js';
import type { Chain } from './scope-chain.js';
import type { StoredScope } from './scope-limits.js';
import { StoreClock } from './scope-windows.js';
import { type PendingSettlement, SettlementQueue } from './settlement-queue.js';
import type { SlotQueue } from './slot-waiters.js';
import { checkTenants, type TenantLimits } from './tenants.js';
import { checkThresholds, Thresholds } from './thresholds.js';
import type { WorstCasePricing } from './worst-case-cost.js';

/** Every option of `createBudget`: any other key is refused, with the nearest of these. */
const OPTION_KEYS: readonly (keyof BudgetOptions)[] = [
  'scope',
  'store',
  'ownsStore',
  'roles',
  'priceBook',
  'maxPricesOf',
  'maxOutputTokens',
  'maxCostUsdOf',
  'leaseTtlMs',
  'slotWaitMs',
  'waitForSettlements',
  'fitMaxTokens',
  'fallback',
  'onLedgerLost',
  'onWarning',
  'clock',
  'thresholds',
  'onThreshold',
  'tenants',
  'allotments',
];

const DEFAULT_TTL_MS = 30_000;
const DEFAULT_SLOT_WAIT_MS = 60_000;
/** A dated tariff counts at the dearest band it reaches within this long of an attempt's start. */
const PRICING_HORIZON_MS = 3_600_000;

/** What a budget and its children share: options, the store's queues and what the store last said. */
export interface Shared {
  readonly store: BudgetStore;
  readonly pricing: WorstCasePricing;
  readonly ttlMs: number;
  readonly slotWaitMs: number;
  /** A call blocked only by reservations waits (up to `slotWaitMs`) rather than being refused. */
  readonly waitForSettlements: boolean;
  /** The budget's `fitMaxTokens` (a role's may replace it), or null when calls are not fitted. */
  readonly fitMaxTokens: FitMaxTokens | null;
  readonly fallback: { readonly store: BudgetStore; readonly share: number } | null;
  readonly onLedgerLost: 'refuse' | 'start-afresh';
  readonly onWarning: (message: string) => void;
  /** The clock that decides calendar windows, as this process reads it. */
  readonly clock: StoreClock;
  /** `onThreshold`, fired once per scope, window and threshold, as the store decides. */
  readonly thresholds: Thresholds;
  /** The limits of each tenant's scope (`tenants`), or null: calls' tenants get no scope of their own. */
  readonly tenants: TenantLimits | null;
  readonly heartbeat: LeaseHeartbeat;
  /** `allotments`, checked; null when off (the shares themselves: `sharesOf` of allotments.ts). */
  readonly allotments: AllotmentSettings | null;
  /** Attempts waiting for a slot or for room, per innermost scope path. */
  readonly queues: Map<string, SlotQueue>;
  /**
   * Set by `close()` (of any budget of the tree): every call from then on, and every call still
   * waiting for a slot or for room, is refused; a lease the store grants after it is released.
   */
  closed: boolean;
  /** Attempts whose acquisition is under way (a store's answer awaited, or a wait): `close()` lets them end first. */
  readonly asking: Set<Promise<void>>;
  /** Closes the stores the budget owns (built, or given with `ownsStore: true`), once. */
  closeOwnedStores(): Promise<void>;
  /** Settlements waiting for their store, per store. */
  readonly settlements: Map<BudgetStore, SettlementQueue>;
  /** Delivers a settlement to a store, in order, retried until it is recorded. */
  settle(store: BudgetStore, pending: PendingSettlement): void | Promise<void>;
  /** The store answered an acquisition: remember what each scope had left. */
  storeAnswered(chain: Chain, result: AcquireResult): void;
  /** The chain's scopes as the fallback store sees them, or null when the store never answered for one with a limit. */
  fallbackScopes(chain: Chain): StoredScope[] | null;
  adoptPriceBook(book: PriceBook): boolean;
  /**
   * True while the fallback's books are not yet back in the store: a live fallback
   * lease the store does not hold yet, or a settlement (a write-back) still waiting
   * for the store. Until then, acquisitions stay on the fallback, so the store never
   * hands out room or slots the fallback holds or spent.
   */
  draining(): boolean;
  /**
   * Makes the store hold each live fallback lease (its worst case and its slot, under
   * the id its write-back settles), so other processes see them once the store is
   * back. Stops at the first failure (the store is still away). Resolves with the
   * store's configuration error when it said it is misconfigured (here, or to a
   * settlement since it last answered), else null: that is refused, never drained.
   */
  adoptFallbackLeases(): Promise<unknown>;
  /** A fallback lease was granted (with the chain's scopes in the store), or its write-back was recorded. */
  fallbackLeaseStarted(leaseId: string, scopes: readonly StoredScope[], amount: number): void;
  fallbackLeaseEnded(leaseId: string): void;
}

/** Checks every option (TypeError or RangeError naming it) and builds what a budget's scopes share. */
export function sharedOf(options: BudgetOptions): Shared {
  if (options === null || typeof options !== 'object')
    throw new TypeError('budget options must be an object');
  checkKnownKeys(options, OPTION_KEYS, 'createBudget options');
  const ttlMs = checkDurationMs(options.leaseTtlMs ?? DEFAULT_TTL_MS, 'leaseTtlMs', 10);
  const slotWaitMs = checkDurationMs(options.slotWaitMs ?? DEFAULT_SLOT_WAIT_MS, 'slotWaitMs', 0);
  const waitForSettlements = options.waitForSettlements ?? true;
  if (typeof waitForSettlements !== 'boolean') {
    throw new TypeError(`waitForSettlements must be true or false, got ${String(waitForSettlements)}`);
  }
  const fitMaxTokens = checkFitMaxTokens(options.fitMaxTokens, 'fitMaxTokens');
  checkStore(options.store, 'store');
  if (options.fallback !== undefined && (options.fallback === null || typeof options.fallback !== 'object')) {
    throw new TypeError('fallback must be an object: { store?, share? }');
  }
  if (options.fallback !== undefined) checkKnownKeys(options.fallback, ['store', 'share'], 'fallback');
  checkStore(options.fallback?.store, 'fallback.store');
  if (options.ownsStore !== undefined && typeof options.ownsStore !== 'boolean') {
    throw new TypeError(`ownsStore must be true or false, got ${String(options.ownsStore)}`);
  }
  if (options.ownsStore === true && options.store === undefined) {
    throw new TypeError('ownsStore: true needs a store: the budget owns the store it builds anyway');
  }
  const share = options.fallback?.share ?? 1;
  if (!(typeof share === 'number' && share > 0 && share <= 1)) {
    throw new RangeError(`fallback.share must be a number in (0, 1], got ${String(share)}`);
  }
  if (options.clock !== undefined && options.store !== undefined) {
    throw new TypeError(
      'clock is for the memory store createBudget builds: a store given decides windows by its own clock (a MemoryBudgetStore takes a clock option)',
    );
  }
  for (const name of ['maxPricesOf', 'maxCostUsdOf', 'onWarning', 'clock', 'onThreshold'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'function') {
      throw new TypeError(`${name} must be a function`);
    }
  }
  if (options.priceBook !== undefined && !isPriceBook(options.priceBook)) {
    throw new TypeError('priceBook must be a PriceBook of @switchboard/prices');
  }
  if (options.priceBook !== undefined && options.maxPricesOf !== undefined) {
    throw new TypeError('give priceBook or maxPricesOf, not both');
  }
  const onLedgerLost = options.onLedgerLost ?? 'refuse';
  if (onLedgerLost !== 'refuse' && onLedgerLost !== 'start-afresh') {
    throw new TypeError(`onLedgerLost must be 'refuse' or 'start-afresh', got ${String(onLedgerLost)}`);
  }
  if (options.roles !== undefined && (options.roles === null || typeof options.roles !== 'object')) {
    throw new TypeError('roles must be an object of role name to limits');
  }
  const onWarning = options.onWarning ?? ((message: string) => process.emitWarning(message, 'BudgetWarning'));
  const wallClock = options.clock ?? Date.now;
  const store = options.store ?? new MemoryBudgetStore({ clock: wallClock });
  // A memory store's clock is read as it is; a shared store's through this process's clock and an offset.
  const clock = new StoreClock(store instanceof MemoryBudgetStore ? () => store.clockMs() : wallClock);
  const fallback = options.fallback
    ? { store: options.fallback.store ?? new MemoryBudgetStore(), share }
    : null;
  const owned: BudgetStore[] = [];
  if (options.store === undefined || options.ownsStore === true) owned.push(store);
  if (fallback !== null && options.fallback?.store === undefined) owned.push(fallback.store);
  let closing: Promise<void> | null = null;

  let book: PriceBook | null = options.priceBook ?? null;
  const ownPrices = options.priceBook !== undefined || options.maxPricesOf !== undefined;
  const maxPricesOf =
    options.maxPricesOf ??
    ((model: string) => {
      book ??= new PriceBook();
      const now = Date.now();
      return book.maxPricesOf(model, { from: now, until: now + PRICING_HORIZON_MS });
    });

  /** Per scope key, what the store last said was left: nano-dollars and slots. */
  const lastLeft = new RecentMap<{ money: number; slots: number }>(10_000);
  let epoch = 0;
  let onFallback = false;
  let failures = 0;
  /** The store's last configuration error (a Redis Cluster node as a url) since it last answered. */
  let misconfiguration: unknown = null;
  /** Live fallback leases by write-back id: the store's scopes, the amount, and whether the store holds it. */
  const fallbackLeases = new Map<
    string,
    { scopes: readonly StoredScope[]; amount: number; adopted: boolean }
  >();
  const settlements = new Map<BudgetStore, SettlementQueue>();

  return {
    store,
    pricing: {
      maxPricesOf,
      maxOutputTokensOf: outputTokensOf(options.maxOutputTokens),
      maxCostUsdOf: options.maxCostUsdOf ?? (() => null),
    },
    ttlMs,
    slotWaitMs,
    waitForSettlements,
    fitMaxTokens,
    fallback,
    onLedgerLost,
    onWarning,
    clock,
    tenants: checkTenants(options.tenants),
    thresholds: new Thresholds(checkThresholds(options.thresholds), options.onThreshold ?? null, onWarning),
    heartbeat: new LeaseHeartbeat(ttlMs, onWarning),
    allotments: checkAllotments(options.allotments),
    queues: new Map(),
    closed: false,
    asking: new Set(),
    settlements,
    closeOwnedStores() {
      closing ??= Promise.all(
        owned.map(async (each) => {
          try {
            await each.close?.();
          } catch (error) {
            onWarning(
              `a budget store could not be closed: ${error instanceof Error ? error.message : String(error)}`,
            );
          }
        }),
      ).then(() => {});
      return closing;
    },
    settle(target, pending) {
      // A renewal that no longer finds a lease whose settlement was sent is no loss (lease-heartbeat.ts).
      this.heartbeat.settling(pending.leaseId);
      let queue = settlements.get(target);
      if (!queue) {
        queue = new SettlementQueue(target, (error, waiting) => {
          if (target === store && isConfigurationError(error)) misconfiguration = error;
          failures += 1;
          // 1st, 10th, 100th… failure: loud enough, never a flood.
          if (Number.isInteger(Math.log10(failures))) {
            onWarning(
              `a budget settlement is not recorded yet (${error instanceof Error ? error.message : String(error)}); ${waiting} waiting, retried until the store answers`,
            );
          }
        });
        settlements.set(target, queue);
      }
      return queue.add(pending);
    },
    storeAnswered(chain, result) {
      misconfiguration = null;
      // Only a fallback needs to know what was left.
      if (fallback === null) return;
      if (onFallback) {
        onFallback = false;
        epoch += 1;
      }
      const rows = result.granted ? result.counters : undefined;
      for (const [index, scope] of chain.scopes.entries()) {
        const counters = rows
          ? rows[index]
          : !result.granted && result.scopeIndex === index
            ? result.counters
            : undefined;
        if (!counters) continue;
        lastLeft.set(scope.key, {
          money: (scope.limitNanoUsd ?? 0) - counters.spentNanoUsd - counters.reservedNanoUsd,
          slots: (scope.maxInFlight ?? 0) - counters.inFlight,
        });
      }
    },
    fallbackScopes(chain) {
      const scopes: StoredScope[] = [];
      for (const scope of chain.scopes) {
        const left = lastLeft.get(scope.key);
        const limited = scope.limitNanoUsd !== null || scope.maxInFlight !== null;
        if (limited && left === undefined) return null;
        // Slots held when the store was last seen count as taken for the whole outage.
        scopes.push({
          key: `${scope.key}#${epoch}`,
          limitNanoUsd:
            scope.limitNanoUsd === null ? null : Math.floor(Math.max(0, left?.money ?? 0) * share),
          maxInFlight: scope.maxInFlight === null ? null : Math.floor(Math.max(0, left?.slots ?? 0) * share),
        });
      }
      onFallback = true;
      return scopes;
    },
    draining() {
      if (!onFallback) return false;
      if ((settlements.get(store)?.size ?? 0) > 0) return true;
      for (const lease of fallbackLeases.values()) if (!lease.adopted) return true;
      return false;
    },
    async adoptFallbackLeases() {
      for (const [leaseId, lease] of fallbackLeases) {
        if (lease.adopted) continue;
        // No limits: the room was taken while the store was away; the store must now count it.
        const scopes = lease.scopes.map((scope) => ({
          key: scope.key,
          limitNanoUsd: null,
          maxInFlight: null,
        }));
        try {
          await store.acquire({ leaseId, scopes, amountNanoUsd: lease.amount, ttlMs });
        } catch (error) {
          if (isConfigurationError(error)) misconfiguration = error;
          return misconfiguration;
        }
        misconfiguration = null;
        // Granted, or refused (a lost ledger): either way there is nothing more to do for it.
        lease.adopted = true;
        if (fallbackLeases.has(leaseId)) this.heartbeat.add({ leaseId, scopes, store });
      }
      return misconfiguration;
    },
    fallbackLeaseStarted(leaseId, scopes, amount) {
      fallbackLeases.set(leaseId, { scopes, amount, adopted: false });
    },
    fallbackLeaseEnded(leaseId) {
      fallbackLeases.delete(leaseId);
      this.heartbeat.delete(leaseId);
    },
    adoptPriceBook(given) {
      if (!isPriceBook(given))
        throw new TypeError('adoptPriceBook: expected a PriceBook of @switchboard/prices');
      if (ownPrices) return false;
      book = given;
      return true;
    },
  };
}

/** A store's error saying it is misconfigured, not away (`StoreError.configuration`). */
function isConfigurationError(error: unknown): boolean {
  return (error as { configuration?: unknown } | null)?.configuration === true;
}

function checkStore(store: unknown, name: string): void {
  if (store === undefined) return;
  const methods = ['acquire', 'settle', 'renew', 'counters'];
  if (
    store === null ||
    typeof store !== 'object' ||
    !methods.every((method) => typeof (store as Record<string, unknown>)[method] === 'function')
  ) {
    throw new TypeError(`${name} must be a BudgetStore (acquire, settle, renew and counters methods)`);
  }
}

function isPriceBook(value: unknown): value is PriceBook {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as PriceBook).maxPricesOf === 'function' &&
    typeof (value as PriceBook).priceOf === 'function'
  );
}

function outputTokensOf(option: BudgetOptions['maxOutputTokens']): (model: string) => number | null {
  if (option === undefined) return () => null;
  if (typeof option === 'function') return option;
  if (!(Number.isInteger(option) && option >= 1)) {
    throw new RangeError(`maxOutputTokens must be a positive integer or a function, got ${String(option)}`);
  }
  return () => option;
}
