import type { BudgetStore } from './budget-store.js';
import type { StoredScope } from './scope-limits.js';

/** A live lease the heartbeat keeps renewing. */
export interface LiveLease {
  readonly leaseId: string;
  readonly scopes: readonly StoredScope[];
  readonly store: BudgetStore;
  /** Told when a renewal finds the lease no longer held (expired): an allotment's share stops taking calls. */
  readonly onLost?: () => void;
}

/**
 * Renews every live lease of a budget on one timer, every third of the TTL, so a
 * running call keeps its reservation and slot while a dead process's leases lapse.
 * The timer runs only while leases are live (up to one idle tick) and never keeps the process alive.
 */
export class LeaseHeartbeat {
  readonly #live = new Map<string, LiveLease>();
  /** Live leases whose settlement was sent: renewed still, but not lost when a renewal no longer finds them. */
  readonly #settling = new Set<string>();
  /**
   * Stores with a renewal on the server: a beat skips them. A second renewal would pile up behind a slow
   * server, and a renewal passes over lease rows another transaction holds (PostgreSQL), so it would miss
   * the leases the first one holds and report them lost.
   */
  readonly #renewing = new Set<BudgetStore>();
  readonly #ttlMs: number;
  readonly #onWarning: (message: string) => void;
  #timer: NodeJS.Timeout | null = null;

  constructor(ttlMs: number, onWarning: (message: string) => void) {
    this.#ttlMs = ttlMs;
    this.#onWarning = onWarning;
  }

  add(lease: LiveLease): void {
    this.#live.set(lease.leaseId, lease);
    if (this.#timer === null) {
      this.#timer = setInterval(() => this.#beat(), Math.max(1, Math.floor(this.#ttlMs / 3)));
      this.#timer.unref();
    }
  }

  delete(leaseId: string): void {
    // The timer stops at its next tick when nothing is live: calls one after another reuse it.
    this.#live.delete(leaseId);
    this.#settling.delete(leaseId);
  }

  /**
   * The lease's settlement is being sent: a renewal that does not find it held may have run after the
   * settlement committed, before its answer came back (settlements of a chain go together, behind the one on
   * the server), so that is no loss. A lease that did expire is told by its settlement's answer.
   */
  settling(leaseId: string): void {
    if (this.#live.has(leaseId)) this.#settling.add(leaseId);
  }

  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }

  #beat(): void {
    if (this.#live.size === 0) {
      this.stop();
      return;
    }
    const byStore = new Map<BudgetStore, LiveLease[]>();
    for (const lease of this.#live.values()) {
      const group = byStore.get(lease.store);
      if (group) group.push(lease);
      else byStore.set(lease.store, [lease]);
    }
    for (const [store, leases] of byStore) {
      if (this.#renewing.has(store)) continue;
      this.#renewing.add(store);
      Promise.resolve()
        .then(() => store.renew(leases, this.#ttlMs))
        .finally(() => this.#renewing.delete(store))
        .then(
          (lost) => {
            // A lease settled while the renewal ran is gone too, and is no loss.
            const expired = lost.filter((leaseId) => this.#live.has(leaseId) && !this.#settling.has(leaseId));
            for (const leaseId of expired) this.#live.get(leaseId)?.onLost?.();
            if (expired.length > 0) {
              this.#onWarning(`${expired.length} budget lease(s) expired while their calls ran`);
            }
          },
          (error: unknown) => this.#onWarning(`budget leases could not be renewed: ${messageOf(error)}`),
        );
    }
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
