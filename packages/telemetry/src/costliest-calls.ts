import type { SettlementKind } from './settlement.js';

/** One of the dearest calls of a report. */
export interface CostlyCall {
  /** The call's ISO time. */
  readonly at: string;
  /** Its line in the journal. */
  readonly line: number;
  readonly model: string;
  readonly role: string | null;
  /** `ok` or the error kind. */
  readonly outcome: string;
  /** What the books record for it: `estimate` marks a cost that is a lower bound. */
  readonly settlement: SettlementKind;
  readonly costNanoUsd: number;
}

/** How many of the dearest calls a report keeps. */
const COSTLIEST_CALLS = 20;

/** The dearest calls seen so far, at most {@link COSTLIEST_CALLS}: O(1) memory. */
export class CostliestCalls {
  readonly #calls: CostlyCall[] = [];

  /** Offers a call of that cost; `describe` is only run when it is kept. */
  offer(costNanoUsd: number, describe: () => CostlyCall): void {
    const calls = this.#calls;
    if (calls.length >= COSTLIEST_CALLS && costNanoUsd <= (calls[calls.length - 1]?.costNanoUsd ?? 0)) return;
    let index = calls.length;
    while (index > 0 && (calls[index - 1]?.costNanoUsd ?? 0) < costNanoUsd) index -= 1;
    calls.splice(index, 0, Object.freeze(describe()));
    if (calls.length > COSTLIEST_CALLS) calls.pop();
  }

  /** The calls kept, dearest first (earliest first among equals). */
  calls(): readonly CostlyCall[] {
    return Object.freeze([...this.#calls]);
  }
}
