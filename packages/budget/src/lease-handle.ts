import type {
  AttemptHandle,
  AttemptOutcome,
  CallRecord,
  ChargedScope,
  SettlementKind,
} from '@switchboard/adapter';
import { costOf } from '@switchboard/prices';
import type { BudgetStore, Settlement } from './budget-store.js';
import { MAX_CALL_NANO_USD, settleNanoUsd, usdOf } from './nano-usd.js';
import type { StoredScope } from './scope-limits.js';
import type { Shared } from './shared.js';

/** One granted lease: where it was taken and what it holds. */
export interface Lease {
  readonly leaseId: string;
  readonly store: BudgetStore;
  readonly scopes: readonly StoredScope[];
  /** The worst case reserved, in nano-dollars. */
  readonly amount: number;
  /** For a fallback lease: the chain's scopes in the budget's own store, where its spend is written back. */
  readonly writeBack: readonly StoredScope[] | null;
  /** The scopes' paths, root first (`svc`, `svc/acme`): what threshold events name. */
  readonly paths: readonly string[];
}

/**
 * The handle of one granted attempt: its `end` settles the lease once — at the
 * record's cost, at the worst case (unsettled) when the cost is unknown, or
 * released (0) when the attempt provably never reached the provider.
 */
export class LeaseHandle implements AttemptHandle {
  /** The lower cap the attempt was fitted to (`fitMaxTokens`); absent when it was not. */
  readonly maxTokens?: number;
  /** The scopes the attempt was charged to, root first, with their limits. */
  readonly budgets: readonly ChargedScope[];
  readonly #shared: Shared;
  readonly #lease: Lease;
  #ended = false;

  constructor(
    shared: Shared,
    lease: Lease,
    attempt: { maxTokens: number | null; budgets: readonly ChargedScope[] },
  ) {
    this.#shared = shared;
    this.#lease = lease;
    if (attempt.maxTokens !== null) this.maxTokens = attempt.maxTokens;
    this.budgets = attempt.budgets;
  }

  /** Settles or releases the lease, in order with the budget's other settlements. Never throws; later calls do nothing. */
  end(outcome: AttemptOutcome): void | Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    const { leaseId, store, scopes, amount, writeBack } = this.#lease;
    const settlement = this.#settlementOf(outcome);
    if (settlement.actualNanoUsd > amount && settlement.unsettled !== true) {
      this.#shared.onWarning(
        `a call cost ${usdOf(settlement.actualNanoUsd)} USD, more than its worst case of ${usdOf(amount)} USD`,
      );
    }
    if (writeBack !== null) {
      // Its own id: the lease id itself was released in the store when the acquisition failed.
      void this.#shared.settle(this.#shared.store, {
        leaseId: `${leaseId}:fallback`,
        scopes: writeBack,
        settlement,
        done: () => this.#shared.fallbackLeaseEnded(`${leaseId}:fallback`),
      });
    }
    let thresholds: Promise<void> | null = null;
    const settled = this.#shared.settle(store, {
      leaseId,
      scopes,
      // Granted by this store: once its worst case is pruned, a late settlement leaves it so.
      settlement: { ...settlement, leased: true },
      done: (held) => {
        this.#settled(held, settlement);
        // Spend grew: the store says which thresholds it reached first (a fallback's spend, once written back).
        if (settlement.actualNanoUsd > 0 && store === this.#shared.store) {
          thresholds = this.#shared.thresholds.check(store, scopes, this.#lease.paths) ?? null;
        }
      },
    });
    if (settled instanceof Promise) return settled.then(() => thresholds ?? undefined);
    return thresholds ?? undefined;
  }

  /**
   * What the books record, as the adapter's settlement rule said: `exact` at the record's
   * cost; `estimate` and `unsettled` at the worst case, unsettled (the record's estimate is a
   * lower bound, never what settles a budget); `none` released.
   */
  #settlementOf(outcome: AttemptOutcome): Settlement {
    const worstCase: Settlement = { actualNanoUsd: this.#lease.amount, unsettled: true };
    const record = outcome?.record ?? null;
    switch (settlementKindOf(outcome)) {
      case 'exact': {
        const known = record === null ? null : this.#costOf(record);
        return known === null ? worstCase : { actualNanoUsd: known };
      }
      case 'none':
        return { actualNanoUsd: 0 };
      default:
        return worstCase;
    }
  }

  /**
   * An exact record's cost; without one (an unpriced model), its usage at the maximum
   * prices; null when neither is known.
   */
  #costOf(record: CallRecord): number | null {
    let usd: number | null = null;
    if (typeof record.costUsd === 'number' && Number.isFinite(record.costUsd)) usd = record.costUsd;
    else usd = costOf(this.#shared.pricing.maxPricesOf(record.model), record.usage);
    if (usd === null) return null;
    const nano = settleNanoUsd(Math.max(0, usd));
    if (nano <= MAX_CALL_NANO_USD) return nano;
    this.#shared.onWarning(
      `a call of ${record.model} reported a cost of ${usd} USD, beyond what a budget counts exactly; ${usdOf(MAX_CALL_NANO_USD)} USD is counted`,
    );
    return MAX_CALL_NANO_USD;
  }

  #settled(held: boolean, settlement: Settlement): void {
    if (!held) {
      this.#shared.onWarning(
        settlement.unsettled === true
          ? 'a budget lease had expired before its call ended; it stays counted at its worst case'
          : 'a budget lease had expired before its call ended; the worst case counted for it was replaced by its cost (unless the store had pruned it after its retention: then it stays at the worst case)',
      );
    }
    this.#shared.heartbeat.delete(this.#lease.leaseId);
    // The freed slot may be in a scope that waiters of any chain share.
    for (const queue of this.#shared.queues.values()) queue.leaseEnded();
  }
}

/**
 * The settlement kind of an attempt: as the adapter's rule said, or, from an older
 * adapter, guessed from what it told: a record with a cost is exact, an estimate is
 * an estimate, and a failure is released only when it provably cost nothing.
 */
function settlementKindOf(outcome: AttemptOutcome): SettlementKind {
  const told = (outcome as { settlement?: unknown } | null)?.settlement;
  if (told === 'exact' || told === 'estimate' || told === 'unsettled' || told === 'none') return told;
  const record = outcome?.record ?? null;
  if (record !== null) return (record.priceSource as string | null) === 'estimate' ? 'estimate' : 'exact';
  const billed = (outcome as { mayHaveBeenBilled?: unknown } | null)?.mayHaveBeenBilled;
  if (typeof billed === 'boolean') return billed ? 'unsettled' : 'none';
  const error = outcome?.error as { kind?: unknown; status?: unknown } | null | undefined;
  if (error?.kind === 'budget') return 'none';
  return typeof error?.status === 'number' && error.status >= 400 ? 'none' : 'unsettled';
}
