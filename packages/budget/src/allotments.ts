import { randomUUID } from 'node:crypto';
import type { AttemptHandle } from '@switchboard/adapter';
import type { AllotmentSettings } from './allotment-options.js';
import { Share, ShareHandle } from './allotment-share.js';
import type { AcquireResult, ScopeCounters, Settlement } from './budget-store.js';
import type { Chain } from './scope-chain.js';
import type { StoredScope } from './scope-limits.js';
import { scopesAt } from './scope-windows.js';
import type { Shared } from './shared.js';

/** A share holds at most this many worst cases of the call that opened it (unless `maxUsd` says otherwise). */
const SHARE_CALLS = 64;
/** A share takes at most this fraction of the chain's headroom as the counters last showed it. */
const SHARE_FRACTION = 1 / 16;
/** How long a headroom the store reported is trusted to size a share (else the store is asked). */
const HEADROOM_FRESH_MS = 1_000;

interface Slot {
  share: Share | null;
  opening: Promise<Share | null> | null;
  /** The chain's headroom (least over its limited scopes) the store last showed, and when. */
  headroom: number;
  headroomAt: number;
  /** The least limit of the chain (Infinity for none). */
  readonly limit: number;
}

const books = new WeakMap<Shared, Allotments>();

/** The shares of a budget tree (`allotments`), made on first use; null when `allotments` is off. */
export function sharesOf(shared: Shared): Allotments | null {
  if (shared.allotments === null) return null;
  let shares = books.get(shared);
  if (shares === undefined) {
    shares = new Allotments(shared.allotments, shared);
    books.set(shared, shares);
  }
  return shares;
}

/**
 * `allotments`: per chain, a share of its headroom leased from the store as one ordinary lease,
 * from which this process's calls reserve and settle locally. A chain with a `maxInFlight` limit
 * is not served (a share is one slot, not one per call): its calls take the direct way.
 */
export class Allotments {
  readonly #settings: AllotmentSettings;
  readonly #shared: Shared;
  readonly #slots = new WeakMap<Chain, Slot>();
  /** Shares leased and not yet recorded as settled. */
  readonly #live = new Set<Share>();
  /** Settlements of shares under way (before their store settlement is queued). */
  readonly #settling = new Set<Promise<void>>();

  constructor(settings: AllotmentSettings, shared: Shared) {
    this.#settings = settings;
    this.#shared = shared;
  }

  /**
   * A handle of a call of worst case `amount` served by the chain's share; a promise of one (a
   * share being leased); or null (or a promise of null): the call takes the direct way.
   * `waiting`: calls of this chain wait in line for the store, so no new share is leased before them.
   */
  take(chain: Chain, amount: number, waiting: boolean): AttemptHandle | Promise<AttemptHandle | null> | null {
    const shared = this.#shared;
    if (chain.scopes.some((scope) => scope.maxInFlight !== null)) return null;
    let slot = this.#slots.get(chain);
    if (slot === undefined) {
      const limits = chain.scopes.map((scope) => scope.limitNanoUsd ?? Number.POSITIVE_INFINITY);
      const limit = Math.min(...limits);
      slot = { share: null, opening: null, headroom: limit, headroomAt: 0, limit };
      this.#slots.set(chain, slot);
    }
    const share = slot.share;
    if (share !== null) {
      if (share.serves(amount, shared.clock.now())) return this.#serve(chain, share, amount);
      // It cannot serve this call: settled once its calls end; a new one may be leased.
      slot.share = null;
      this.#retire(share);
    }
    if (slot.opening !== null) {
      return slot.opening.then((opened) =>
        opened?.serves(amount, shared.clock.now()) ? this.#serve(chain, opened, amount) : null,
      );
    }
    if (waiting || (shared.fallback !== null && shared.draining())) return null;
    const size = this.#sizeOf(slot, amount);
    if (size === null) return null;
    const opening = this.#open(chain, slot, amount, size);
    slot.opening = opening;
    return opening.then((opened) => {
      if (slot.opening === opening) slot.opening = null;
      return opened?.serves(amount, shared.clock.now()) ? this.#serve(chain, opened, amount) : null;
    });
  }

  /** `counters` of `scopes` with each live share of this process in them replaced by its calls. */
  adjust(scopes: readonly StoredScope[], counters: readonly ScopeCounters[]): ScopeCounters[] {
    return counters.map((counter, index) => {
      const key = scopes[index]?.key;
      let adjusted = counter;
      for (const share of this.#live) {
        if (!share.recorded && share.scopes.some((scope) => scope.key === key))
          adjusted = share.adjust(adjusted);
      }
      return adjusted;
    });
  }

  /** Settles every share with no call in flight (`idle()`), and waits until their settlements are queued. */
  async flush(): Promise<void> {
    for (const share of this.#live) if (share.inFlight === 0) this.#retire(share);
    await Promise.all(this.#settling);
  }

  /** Settles every share now (`close()`): calls still in flight count at their worst case, unsettled. */
  async close(): Promise<void> {
    for (const share of this.#live) this.#settle(share);
    await Promise.all(this.#settling);
  }

  #serve(chain: Chain, share: Share, amount: number): AttemptHandle {
    return new ShareHandle(this.#shared, share, { amount, budgets: chain.charged }, this.#idle);
  }

  /** A share's last call in flight ended: a share that takes no more calls is settled now. */
  readonly #idle = (share: Share): void => {
    if (share.retiring) this.#settle(share);
  };

  /** The size of a new share for a call of `amount`, or null when it would not cover the call. */
  #sizeOf(slot: Slot, amount: number): number | null {
    // Not known lately: at most the least limit of the chain.
    const fresh = performance.now() - slot.headroomAt < HEADROOM_FRESH_MS;
    const headroom = fresh ? slot.headroom : slot.limit;
    const size = Math.min(
      this.#settings.maxNanoUsd ?? SHARE_CALLS * amount,
      Math.floor(headroom * SHARE_FRACTION),
    );
    return size >= amount ? size : null;
  }

  /** Leases a share of `size` (asked again, smaller, once when the store shows less headroom); null when refused. */
  async #open(chain: Chain, slot: Slot, amount: number, size: number): Promise<Share | null> {
    const shared = this.#shared;
    const scopes = scopesAt(chain, shared.clock.now());
    let asked = size;
    for (let tries = 0; tries < 2; tries += 1) {
      const leaseId = randomUUID();
      let result: AcquireResult;
      try {
        result = await shared.store.acquire({ leaseId, scopes, amountNanoUsd: asked, ttlMs: shared.ttlMs });
      } catch (error) {
        // As a call's: a command that may still run is released behind it; the call takes the direct way.
        const flags = error as { configuration?: unknown; ranNothing?: unknown } | null;
        if (flags?.configuration !== true && flags?.ranNothing !== true) {
          const release = { actualNanoUsd: 0 };
          shared.settle(shared.store, { leaseId, scopes, settlement: release, release: true });
        }
        return null;
      }
      // What was left, for a fallback (`fallback`) should the store become unreachable.
      shared.storeAnswered(chain, result);
      if (result.granted) {
        this.#learn(slot, scopes, result.counters);
        return this.#granted(chain, slot, { leaseId, scopes, amount: asked }, result);
      }
      if (result.reason === 'window' && result.nowMs !== undefined) shared.clock.learn(result.nowMs);
      if (result.reason !== 'spend' && result.reason !== 'reserved') return null;
      const limit = scopes[result.scopeIndex]?.limitNanoUsd ?? null;
      if (limit === null) return null;
      const { spentNanoUsd, reservedNanoUsd } = result.counters;
      slot.headroom = Math.max(0, limit - spentNanoUsd - reservedNanoUsd);
      slot.headroomAt = performance.now();
      const smaller = this.#sizeOf(slot, amount);
      if (smaller === null || smaller >= asked) return null;
      asked = smaller;
    }
    return null;
  }

  #granted(
    chain: Chain,
    slot: Slot,
    lease: { leaseId: string; scopes: readonly StoredScope[]; amount: number },
    result: AcquireResult & { granted: true },
  ): Share | null {
    const shared = this.#shared;
    const { leaseId, scopes } = lease;
    if (shared.closed) {
      void shared.settle(shared.store, { leaseId, scopes, settlement: { actualNanoUsd: 0, leased: true } });
      return null;
    }
    const share = new Share({ ...lease, paths: chain.paths }, (idle) => this.#settle(idle));
    this.#live.add(share);
    slot.share = share;
    // Expired in the store (counted there at its worst case): it takes no more calls, and settles when they end.
    const onLost = () => {
      if (slot.share === share) slot.share = null;
      this.#retire(share);
    };
    shared.heartbeat.add({ leaseId, scopes, store: shared.store, onLost });
    shared.thresholds.afterGrant(shared.store, scopes, chain.paths, result.counters);
    return share;
  }

  #learn(slot: Slot, scopes: readonly StoredScope[], counters: readonly ScopeCounters[] | undefined): void {
    if (counters === undefined) return;
    let headroom = Number.POSITIVE_INFINITY;
    for (const [index, scope] of scopes.entries()) {
      const row = counters[index];
      if (scope.limitNanoUsd === null || row === undefined) continue;
      headroom = Math.min(headroom, scope.limitNanoUsd - row.spentNanoUsd - row.reservedNanoUsd);
    }
    slot.headroom = Math.max(0, headroom);
    slot.headroomAt = performance.now();
  }

  /** No call may start on `share` any more; settled now when none is in flight. */
  #retire(share: Share): void {
    share.retiring = true;
    if (share.inFlight === 0) this.#settle(share);
  }

  /**
   * Settles `share` once with what its calls cost (calls still in flight at their worst case).
   * Unsettled worst cases are recorded apart, under a lease of their own taken within the limits,
   * so the store counts them as unsettled and the known costs as settled; when that lease does not
   * fit (or the store does not answer), the whole share settles as unsettled. Either way the books
   * are never below what the calls cost, and never above a limit.
   */
  #settle(share: Share): void {
    if (share.settling) return;
    share.settling = true;
    share.retiring = true;
    share.stopTimer();
    const shared = this.#shared;
    const { store } = shared;
    const { leaseId, scopes, paths } = share;
    const exact = share.exact;
    const unsettled = share.unsettled + share.held;
    const warnIfLost = (held: boolean) => {
      if (held) return;
      shared.onWarning(
        'a budget share had expired before it was settled: it was counted at its worst case, which its settlement replaced (unless the store had pruned it)',
      );
    };
    const finished = () => {
      share.recorded = true;
      this.#live.delete(share);
      shared.heartbeat.delete(leaseId);
      if (exact + unsettled > 0) shared.thresholds.check(store, scopes, paths);
      // The room it held is free: calls waiting for the store may fit now.
      for (const queue of shared.queues.values()) queue.leaseEnded();
    };
    const settleWhole = (settlement: Settlement) =>
      shared.settle(store, {
        leaseId,
        scopes,
        settlement,
        done: (held) => {
          warnIfLost(held);
          finished();
        },
      });
    if (unsettled === 0) {
      settleWhole({ actualNanoUsd: exact, leased: true });
      return;
    }
    // Within the limits, as any lease: the share's amount still counts while it is taken, so the two
    // together can pass no limit, even if this process dies between them (then both count in full).
    const apart = `${leaseId}:unsettled`;
    const request = { leaseId: apart, scopes, amountNanoUsd: unsettled, ttlMs: shared.ttlMs };
    const settling = Promise.resolve()
      .then(() => store.acquire(request))
      .then(
        (result) => result.granted,
        () => false,
      )
      .then((separate) => {
        if (!separate) {
          settleWhole({ actualNanoUsd: exact + unsettled, unsettled: true, leased: true });
          return;
        }
        const known = { actualNanoUsd: exact, leased: true };
        shared.settle(store, { leaseId, scopes, settlement: known, done: warnIfLost });
        const worst = { actualNanoUsd: unsettled, unsettled: true, leased: true };
        shared.settle(store, { leaseId: apart, scopes, settlement: worst, done: finished });
      })
      .finally(() => this.#settling.delete(settling));
    this.#settling.add(settling);
  }
}
