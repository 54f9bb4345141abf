import type { AttemptHandle, AttemptOutcome, ChargedScope } from '@switchboard/adapter';
import { settlementOf } from './attempt-settlement.js';
import type { ScopeCounters } from './budget-store.js';
import { usdOf } from './nano-usd.js';
import type { StoredScope } from './scope-limits.js';
import type { Shared } from './shared.js';

/** How long a share stays with no call of its own in flight before it is settled. */
const SHARE_IDLE_MS = 50;
/**
 * How long a share takes new calls: then it settles once its calls end, and a new one is leased, so what
 * the store shows (spend, thresholds, `budget show`) is never more than this behind a busy process.
 */
const SHARE_MAX_AGE_MS = 1_000;

/**
 * A share of a chain's headroom this process leased from the store (one ordinary lease of
 * `amount`): local calls reserve their worst case from it and settle into it, with no round
 * trip. It is settled once, with the sum of what its calls cost: when idle, when it cannot
 * serve a call (run out, its window ended, or a second passed since it was leased), and on `idle()` or
 * `close()`.
 */
export class Share {
  readonly leaseId: string;
  readonly scopes: readonly StoredScope[];
  readonly paths: readonly string[];
  readonly amount: number;
  /** The end of the earliest window among its scopes (store clock, ms), or Infinity. */
  readonly endMs: number;
  /** When it was leased (this process's monotonic clock). */
  readonly #leasedAt = performance.now();
  /** Worst cases of its calls in flight. */
  held = 0;
  /** Known costs of its ended calls. */
  exact = 0;
  /** Worst cases of its ended calls whose cost is unknown. */
  unsettled = 0;
  unsettledCalls = 0;
  inFlight = 0;
  /** No call may start on it any more: it is settled when its calls in flight end. */
  retiring = false;
  /** Its settlement was started; then recorded by the store. */
  settling = false;
  recorded = false;
  #idleSince = 0;
  #timer: NodeJS.Timeout | null = null;
  readonly #onIdle: (share: Share) => void;

  constructor(
    lease: { leaseId: string; scopes: readonly StoredScope[]; paths: readonly string[]; amount: number },
    onIdle: (share: Share) => void,
  ) {
    this.leaseId = lease.leaseId;
    this.scopes = lease.scopes;
    this.paths = lease.paths;
    this.amount = lease.amount;
    this.endMs = Math.min(...lease.scopes.map((scope) => scope.window?.endMs ?? Number.POSITIVE_INFINITY));
    this.#onIdle = onIdle;
  }

  /** What is left for new calls, in nano-dollars. */
  get free(): number {
    return this.amount - this.held - this.exact - this.unsettled;
  }

  /** It may serve a call of worst case `amount` starting at `nowMs` (store clock). */
  serves(amount: number, nowMs: number): boolean {
    return (
      !this.retiring &&
      nowMs < this.endMs &&
      this.free >= amount &&
      performance.now() - this.#leasedAt < SHARE_MAX_AGE_MS
    );
  }

  /** A call of worst case `amount` starts on it. */
  start(amount: number): void {
    this.held += amount;
    this.inFlight += 1;
  }

  /** A call that held `amount` ended, costing `actual` (`unsettled`: a worst case). Returns true when the share is now idle. */
  end(amount: number, actual: number, unsettled: boolean): boolean {
    this.held -= amount;
    this.inFlight -= 1;
    if (unsettled) {
      this.unsettled += actual;
      this.unsettledCalls += 1;
    } else this.exact += actual;
    if (this.inFlight > 0 || this.settling) return false;
    if (!this.retiring) this.#armIdle();
    return true;
  }

  /** The counters of its scope `index` as this process knows them: what the store shows, with this share's calls in place of the share. */
  adjust(counters: ScopeCounters): ScopeCounters {
    const spent = this.exact + this.unsettled;
    return {
      ...counters,
      spentNanoUsd: counters.spentNanoUsd + spent,
      reservedNanoUsd: Math.max(0, counters.reservedNanoUsd - spent),
      inFlight: Math.max(0, counters.inFlight - 1 + this.inFlight),
      unsettledNanoUsd: counters.unsettledNanoUsd + this.unsettled,
      unsettledCalls: counters.unsettledCalls + this.unsettledCalls,
    };
  }

  stopTimer(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }

  // One timer per idle spell at most: a call starting meanwhile does not clear it; it looks again when it fires.
  #armIdle(): void {
    this.#idleSince = performance.now();
    if (this.#timer === null) this.#wait(SHARE_IDLE_MS);
  }

  #wait(ms: number): void {
    this.#timer = setTimeout(() => {
      this.#timer = null;
      if (this.settling || this.inFlight > 0) return;
      const left = SHARE_IDLE_MS - (performance.now() - this.#idleSince);
      if (left > 0) this.#wait(left);
      else this.#onIdle(this);
    }, ms);
    this.#timer.unref();
  }
}

/** The handle of one call served by a share: its `end` settles into the share, in this process. */
export class ShareHandle implements AttemptHandle {
  readonly budgets: readonly ChargedScope[];
  readonly #shared: Shared;
  readonly #share: Share;
  readonly #amount: number;
  readonly #ended: (share: Share) => void;
  #done = false;

  constructor(
    shared: Shared,
    share: Share,
    call: { amount: number; budgets: readonly ChargedScope[] },
    ended: (share: Share) => void,
  ) {
    this.#shared = shared;
    this.#share = share;
    this.#amount = call.amount;
    this.budgets = call.budgets;
    this.#ended = ended;
    share.start(call.amount);
  }

  /** Settles the call into its share. Never throws; later calls do nothing. */
  end(outcome: AttemptOutcome): void {
    if (this.#done) return;
    this.#done = true;
    const settlement = settlementOf(outcome, this.#amount, this.#shared);
    const unsettled = settlement.unsettled === true;
    if (settlement.actualNanoUsd > this.#amount && !unsettled) {
      this.#shared.onWarning(
        `a call cost ${usdOf(settlement.actualNanoUsd)} USD, more than its worst case of ${usdOf(this.#amount)} USD`,
      );
    }
    // A share settled meanwhile (close()) counted this call at its worst case already.
    if (this.#share.settling) return;
    if (this.#share.end(this.#amount, settlement.actualNanoUsd, unsettled)) this.#ended(this.#share);
  }
}
