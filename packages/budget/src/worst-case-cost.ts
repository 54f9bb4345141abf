import type { AttemptInfo } from '@switchboard/adapter';
import { maxPricesUpToInput, type Prices } from '@switchboard/prices';
import { BudgetError } from './budget-error.js';
import { attemptPromptTokenBound } from './prompt-token-bound.js';

/** How a budget prices the worst case of a call. */
export interface WorstCasePricing {
  /** The highest prices a call of this model could be billed at, or null when unpriced. */
  readonly maxPricesOf: (model: string) => Prices | null;
  /** The most output tokens a call without `max_tokens` may produce, or null when unknown. */
  readonly maxOutputTokensOf: (model: string) => number | null;
  /** What an unpriced model's call may cost at most, in USD, or null to refuse such calls. */
  readonly maxCostUsdOf: (model: string) => number | null;
}

/** An attempt's worst case, and what it would be at a lower answer cap. */
export interface WorstCase {
  /** The most the attempt can cost at its own cap, in USD. */
  readonly usd: number;
  /** The cap it assumes (`max_tokens`, else the model's configured maximum); null for an unpriced model's fixed bound. */
  readonly outputTokens: number | null;
  /** The worst case at cap `outputTokens` (the same prices and prompt bound), in USD. */
  readonly usdAt: (outputTokens: number) => number;
}

/**
 * The most an attempt can cost, in USD: every prompt token at the higher of the
 * cache-miss and cache-hit prices (the bound of {@link promptTokenBound}), plus
 * the output cap (`max_tokens`, else the model's configured maximum) at the output
 * price; for prices with prompt-size tiers, at the dearest tier that bound reaches. Throws a {@link BudgetError} when no bound exists (unpriced, uncapped).
 */
export function worstCaseCostUsd(info: AttemptInfo, pricing: WorstCasePricing, scope: string): number {
  return worstCaseOf(info, pricing, scope).usd;
}

/** {@link worstCaseCostUsd} with the cap it assumes and the worst case at a lower cap (a budget fitting the call). */
export function worstCaseOf(info: AttemptInfo, pricing: WorstCasePricing, scope: string): WorstCase {
  const prices = pricing.maxPricesOf(info.model);
  if (prices === null) {
    const max = pricing.maxCostUsdOf(info.model);
    if (max === null) {
      throw new BudgetError({
        reason: 'unpriced',
        scope,
        message: `budget scope "${scope}" refused a call of ${info.model}: the model has no price, so its worst case is unknown; give the budget maxCostUsdOf for it`,
      });
    }
    const usd = checked(max, 'maxCostUsdOf', info.model, scope);
    return { usd, outputTokens: null, usdAt: () => usd };
  }
  const outputTokens = info.maxTokens ?? pricing.maxOutputTokensOf(info.model);
  if (outputTokens !== null && !(Number.isInteger(outputTokens) && outputTokens >= 1)) {
    throw new BudgetError({
      reason: 'uncapped',
      scope,
      message: `budget scope "${scope}" refused a call of ${info.model}: maxOutputTokens(${JSON.stringify(info.model)}) gave ${String(outputTokens)}, expected a positive integer or null`,
    });
  }
  if (outputTokens === null || outputTokens === undefined) {
    throw new BudgetError({
      reason: 'uncapped',
      scope,
      message: `budget scope "${scope}" refused a call of ${info.model}: the call has no max_tokens, so its output is unbounded; cap it (a bounded adapter, maxTokens) or give the budget maxOutputTokens`,
    });
  }
  // Once per call: a retry sends the same messages and tools.
  const promptTokens = attemptPromptTokenBound(info);
  // A tiered price: the dearest tier the prompt's bound can reach bills the whole call.
  const reached = maxPricesUpToInput(prices, promptTokens);
  const inputPerM = Math.max(reached.inputPerM, reached.cacheHitPerM);
  return new PricedWorstCase(promptTokens * inputPerM, reached.outputPerM, outputTokens, info.model, scope);
}

/** A priced model's worst case: one object, no closure (made once per attempt). */
class PricedWorstCase implements WorstCase {
  readonly usd: number;
  readonly outputTokens: number;
  // The prompt's bound at the input price, per million tokens (the numerator's fixed part).
  readonly #promptPerM: number;
  readonly #outputPerM: number;
  readonly #model: string;
  readonly #scope: string;

  constructor(promptPerM: number, outputPerM: number, outputTokens: number, model: string, scope: string) {
    this.#promptPerM = promptPerM;
    this.#outputPerM = outputPerM;
    this.#model = model;
    this.#scope = scope;
    this.outputTokens = outputTokens;
    this.usd = this.usdAt(outputTokens);
  }

  usdAt(cap: number): number {
    return checked(
      (this.#promptPerM + cap * this.#outputPerM) / 1_000_000,
      'maxPricesOf',
      this.#model,
      this.#scope,
    );
  }
}

/** A cost that is not a finite number >= 0 would corrupt the counters: refuse the call instead. */
function checked(usd: number, source: string, model: string, scope: string): number {
  if (typeof usd === 'number' && Number.isFinite(usd) && usd >= 0) return usd;
  throw new BudgetError({
    reason: 'unpriced',
    scope,
    message: `budget scope "${scope}" refused a call of ${model}: ${source}(${JSON.stringify(model)}) gave a worst case of ${String(usd)} USD, expected a finite number >= 0`,
  });
}
