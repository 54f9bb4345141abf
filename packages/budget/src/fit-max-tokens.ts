import { checkKnownKeys } from './known-keys.js';
import { reserveNanoUsd } from './nano-usd.js';
import type { WorstCase } from './worst-case-cost.js';

/**
 * Opt-in (`BudgetOptions.fitMaxTokens`, or a role's): a call whose worst case does not fit
 * what is left is sent with a lower `max_tokens` whose worst case does, down to `minTokens`,
 * instead of being refused. Off by default: a shorter answer can break a caller.
 */
export interface FitMaxTokens {
  /** The lowest cap a call may be fitted to: a positive integer. Below it, the call is refused as without fitting. */
  readonly minTokens: number;
}

/** Checks a `fitMaxTokens` option (`where` names it); null when it is left out or `false`. */
export function checkFitMaxTokens(value: unknown, where: string): FitMaxTokens | null {
  if (value === undefined || value === false) return null;
  if (value === null || typeof value !== 'object')
    throw new TypeError(`${where} must be an object { minTokens } or false, got ${String(value)}`);
  checkKnownKeys(value, ['minTokens'], where);
  const { minTokens } = value as { minTokens?: unknown };
  if (!(Number.isSafeInteger(minTokens) && (minTokens as number) >= 1))
    throw new RangeError(`${where}.minTokens must be an integer >= 1, got ${String(minTokens)}`);
  return Object.freeze({ minTokens: minTokens as number });
}

/**
 * What one attempt asks its store to reserve: its worst case in nano-dollars, at its own
 * cap or at one fitted to the room a store said is left. The cap only ever goes down.
 */
export class AttemptAsk {
  /** The worst case to reserve, in nano-dollars. */
  amount: number;
  /** The cap `amount` assumes; null for an unpriced model's fixed bound. */
  cap: number | null;
  /** True once the cap was lowered. */
  lowered = false;
  /** The worst case at the call's own cap, in nano-dollars, before any fitting. */
  readonly askedAmount: number;
  /** The call's own cap (its `max_tokens`, or the assumed `maxOutputTokens`); null for an unpriced model's fixed bound. */
  readonly askedCap: number | null;
  readonly #worst: WorstCase;
  readonly #fit: FitMaxTokens | null;

  constructor(worst: WorstCase, amount: number, fit: FitMaxTokens | null) {
    this.#worst = worst;
    this.amount = amount;
    this.cap = worst.outputTokens;
    this.askedAmount = amount;
    this.askedCap = worst.outputTokens;
    this.#fit = fit;
  }

  /** Whether a store's refusal may be answered by a lower cap. */
  get fits(): boolean {
    return this.#fit !== null && this.cap !== null && this.cap > this.#fit.minTokens;
  }

  /** The floor, for messages; null when the call is not fitted. */
  get minTokens(): number | null {
    return this.#fit?.minTokens ?? null;
  }

  /** The worst case at a cap of `tokens`, in nano-dollars (the floor's, for messages). */
  amountAt(tokens: number): number {
    return reserveNanoUsd(this.#worst.usdAt(tokens));
  }

  /**
   * Lowers the cap to the highest one, not below the floor, whose worst case fits in
   * `roomNanoUsd`; false (nothing changed) when even the floor's does not.
   */
  fitTo(roomNanoUsd: number): boolean {
    const floor = this.#fit?.minTokens;
    const cap = this.cap;
    if (floor === undefined || cap === null || floor >= cap) return false;
    const costAt = (tokens: number) => this.amountAt(tokens);
    if (costAt(floor) > roomNanoUsd) return false;
    // The worst case grows with the cap: the highest cap below the current one that fits.
    let low = floor;
    let high = cap - 1;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if (costAt(middle) <= roomNanoUsd) low = middle;
      else high = middle - 1;
    }
    this.cap = low;
    this.amount = costAt(low);
    this.lowered = true;
    return true;
  }
}
