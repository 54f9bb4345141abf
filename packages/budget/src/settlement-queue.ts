import type { BudgetStore, Settlement } from './budget-store.js';
import type { StoredScope } from './scope-limits.js';

/** One settlement to deliver to a store. */
export interface PendingSettlement {
  readonly leaseId: string;
  readonly scopes: readonly StoredScope[];
  readonly settlement: Settlement;
  /** Told the store's answer once it was recorded. */
  readonly done?: (held: boolean) => void;
}

const FIRST_RETRY_MS = 50;
const MAX_RETRY_MS = 2000;

/**
 * Settlements of one store, delivered in order and never given up while the
 * process lives: a failed one is retried with backoff (50 ms doubling to 2 s)
 * until the store answers, and the ones behind it wait. Stores are idempotent
 * by lease id, so a retry whose first try did reach the store counts once.
 */
export class SettlementQueue {
  readonly #store: BudgetStore;
  readonly #pending: PendingSettlement[] = [];
  readonly #onFailure: (error: unknown, pending: number) => void;
  #draining = false;
  #abandoned = false;
  #idle: Array<() => void> = [];

  constructor(store: BudgetStore, onFailure: (error: unknown, pending: number) => void) {
    this.#store = store;
    this.#onFailure = onFailure;
  }

  /** Settlements not yet recorded by the store. */
  get size(): number {
    return this.#pending.length;
  }

  /**
   * Delivers a settlement after those before it. When nothing waits and the store
   * answers synchronously (the in-memory store), it is recorded before this returns.
   */
  add(pending: PendingSettlement): void | Promise<void> {
    if (this.#pending.length === 0 && !this.#draining) {
      try {
        const answer = this.#store.settle(pending.leaseId, pending.scopes, pending.settlement);
        if (typeof answer === 'boolean') {
          pending.done?.(answer);
          return;
        }
        this.#pending.push(pending);
        this.#draining = true;
        return answer.then(
          (held) => {
            if (this.#pending[0] === pending) this.#pending.shift();
            pending.done?.(held);
            return this.#drain(FIRST_RETRY_MS);
          },
          (error: unknown) => this.#failed(error),
        );
      } catch (error) {
        this.#pending.push(pending);
        this.#draining = true;
        return this.#failed(error);
      }
    }
    this.#pending.push(pending);
  }

  /** Resolves when every settlement so far is recorded. */
  idle(): Promise<void> {
    if (this.#pending.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /** Stops retrying (the process is closing): returns what was never recorded. */
  abandon(): PendingSettlement[] {
    this.#abandoned = true;
    const left = this.#pending.splice(0);
    this.#wakeIdle();
    return left;
  }

  #wakeIdle(): void {
    const waiting = this.#idle;
    this.#idle = [];
    for (const resolve of waiting) resolve();
  }

  async #failed(error: unknown): Promise<void> {
    this.#onFailure(error, this.#pending.length);
    await sleep(FIRST_RETRY_MS);
    return this.#drain(FIRST_RETRY_MS * 2);
  }

  async #drain(backoffMs: number): Promise<void> {
    let wait = backoffMs;
    for (;;) {
      const head = this.#pending[0];
      if (head === undefined || this.#abandoned) break;
      try {
        const held = await this.#store.settle(head.leaseId, head.scopes, head.settlement);
        if (this.#pending[0] === head) this.#pending.shift();
        head.done?.(held);
        wait = FIRST_RETRY_MS;
      } catch (error) {
        this.#onFailure(error, this.#pending.length);
        await sleep(wait);
        wait = Math.min(MAX_RETRY_MS, wait * 2);
      }
    }
    this.#draining = false;
    this.#wakeIdle();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
