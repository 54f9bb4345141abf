import type { BudgetStore, Settlement, ThresholdMarks } from './budget-store.js';
import type { StoredScope } from './scope-limits.js';

/** One settlement to deliver to a store. */
export interface PendingSettlement {
  readonly leaseId: string;
  readonly scopes: readonly StoredScope[];
  readonly settlement: Settlement;
  /** Told the store's answer once it was recorded. */
  readonly done?: (held: boolean) => void;
  /**
   * The threshold levels to ask for with it, where the store can (`settleAndMark`: one round trip), and
   * what is told the marks (before `done`).
   */
  readonly levels?: readonly (readonly number[] | null)[];
  readonly marked?: (marks: readonly ThresholdMarks[]) => void;
  /**
   * The release of a lease never known to be granted (an acquisition whose answer was
   * lost or never came): sent and retried like any settlement, but nothing a caller
   * waits for — `idle()` does not wait for it, `abandon()` drops it without a word,
   * and its retries never keep the process alive.
   */
  readonly release?: boolean;
}

interface Numbered extends PendingSettlement {
  readonly number: number;
}

const FIRST_RETRY_MS = 50;
const MAX_RETRY_MS = 2000;

/**
 * Settlements of one store, never given up while the process lives. While the
 * store answers, each is sent at once (commands on one connection run in the
 * order sent). Once one fails, it and every later one wait in a line, in the
 * order they were made, and the first in line is retried with backoff (50 ms
 * doubling to 2 s) until the store answers. Stores are idempotent by lease id,
 * so a retry whose first try did reach the store counts once.
 */
export class SettlementQueue {
  readonly #store: BudgetStore;
  readonly #onFailure: (error: unknown, waiting: number) => void;
  /** Sent, not yet answered; and how many of those are owed (not releases). */
  #sent = 0;
  #sentOwed = 0;
  /** Failed or made while failing: retried in order. */
  readonly #line: Numbered[] = [];
  #numbers = 0;
  #retrying = false;
  #abandoned = false;
  #idle: Array<() => void> = [];

  constructor(store: BudgetStore, onFailure: (error: unknown, waiting: number) => void) {
    this.#store = store;
    this.#onFailure = onFailure;
  }

  /** Settlements (releases included) not yet recorded by the store. */
  get size(): number {
    return this.#sent + this.#line.length;
  }

  /** Settlements of granted leases not yet recorded: what `idle()` waits for. */
  get owed(): number {
    return this.#sentOwed + this.#line.filter((pending) => pending.release !== true).length;
  }

  /**
   * Delivers a settlement in order with the others. With the in-memory store it is
   * recorded before this returns; otherwise the promise settles once it is sent
   * and answered, or once it joined the line of retries.
   */
  add(pending: PendingSettlement): void | Promise<void> {
    const number = this.#numbers++;
    if (this.#retrying || this.#abandoned) {
      this.#line.push({ ...pending, number });
      return;
    }
    let answer: boolean | Promise<boolean>;
    try {
      answer = this.#send(pending);
    } catch (error) {
      this.#fail({ ...pending, number }, error);
      return;
    }
    if (typeof answer === 'boolean') {
      pending.done?.(answer);
      return;
    }
    const owed = pending.release === true ? 0 : 1;
    this.#sent += 1;
    this.#sentOwed += owed;
    return answer.then(
      (held) => {
        this.#sent -= 1;
        this.#sentOwed -= owed;
        pending.done?.(held);
        this.#maybeIdle();
      },
      (error: unknown) => {
        this.#sent -= 1;
        this.#sentOwed -= owed;
        this.#fail({ ...pending, number }, error);
      },
    );
  }

  /** Resolves when every settlement owed so far is recorded (or given up by `abandon`); releases are not waited for. */
  idle(): Promise<void> {
    if (this.owed === 0 || this.#abandoned) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /** Stops retrying (the process is closing): returns the settlements owed that were never recorded. */
  abandon(): PendingSettlement[] {
    this.#abandoned = true;
    const left = this.#line.splice(0).filter((pending) => pending.release !== true);
    this.#wakeIdle();
    return left;
  }

  /** One settlement to the store; with the threshold marks after it, when it asks for them and the store can. */
  #send(pending: PendingSettlement): boolean | Promise<boolean> {
    const store = this.#store;
    const { levels, marked } = pending;
    if (levels === undefined || marked === undefined || store.settleAndMark === undefined) {
      return store.settle(pending.leaseId, pending.scopes, pending.settlement);
    }
    const answer = store.settleAndMark(pending.leaseId, pending.scopes, pending.settlement, levels);
    if (!(answer instanceof Promise)) {
      marked(answer.marks);
      return answer.held;
    }
    return answer.then(({ held, marks }) => {
      marked(marks);
      return held;
    });
  }

  #fail(numbered: Numbered, error: unknown): void {
    // In the order they were made, whatever order their failures arrived in.
    const at = this.#line.findIndex((other) => other.number > numbered.number);
    this.#line.splice(at < 0 ? this.#line.length : at, 0, numbered);
    if (numbered.release !== true) this.#onFailure(error, this.owed);
    this.#maybeIdle();
    if (!this.#retrying && !this.#abandoned) {
      this.#retrying = true;
      void this.#drain();
    }
  }

  async #drain(): Promise<void> {
    let wait = FIRST_RETRY_MS;
    for (;;) {
      // Retries of releases alone never keep the process alive; owed settlements do, until close().
      await sleep(wait, this.owed === 0);
      const head = this.#line[0];
      if (head === undefined || this.#abandoned) break;
      try {
        const held = await this.#send(head);
        if (this.#line[0] === head) this.#line.shift();
        head.done?.(held);
        wait = 0;
        if (this.#line.length === 0) break;
      } catch (error) {
        if (this.owed > 0) this.#onFailure(error, this.owed);
        wait = Math.min(MAX_RETRY_MS, Math.max(FIRST_RETRY_MS, wait * 2));
      }
    }
    this.#retrying = false;
    this.#maybeIdle();
  }

  #maybeIdle(): void {
    if (this.owed === 0 || this.#abandoned) this.#wakeIdle();
  }

  #wakeIdle(): void {
    const waiting = this.#idle;
    this.#idle = [];
    for (const resolve of waiting) resolve();
  }
}

function sleep(ms: number, unref: boolean): Promise<void> {
  return new Promise((resolve) => {
    if (ms === 0) return resolve();
    const timer = setTimeout(resolve, ms);
    if (unref) timer.unref();
  });
}
