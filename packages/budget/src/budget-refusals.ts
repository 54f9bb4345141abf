import { ChatError } from '@switchboard/adapter';
import { BudgetError } from './budget-error.js';
import type { AcquireResult } from './budget-store.js';
import type { AttemptAsk } from './fit-max-tokens.js';
import { MAX_CALL_NANO_USD, usdOf } from './nano-usd.js';
import type { Chain } from './scope-chain.js';

// The refusals a budget answers with, and their words.

export function unreachable(chain: Chain, error: unknown, why?: string): BudgetError {
  const scope = chain.paths.at(-1) ?? null;
  const tail =
    why !== undefined
      ? `${why}; calls are refused until it answers`
      : 'calls are refused until it answers, unless the budget has a fallback';
  return new BudgetError({
    reason: 'store_unreachable',
    scope,
    message: `budget scope "${scope}" refused the call: its store could not be reached (${messageOf(error)}); ${tail}`,
    cause: error,
  });
}

/**
 * A call after `close()`, or one still waiting for a slot or for room then. BudgetRefusal has no reason of
 * its own for it: `store_unreachable`, as its store is (or is about to be) closed, and no fallback is used.
 */
export function closedError(chain: Chain): BudgetError {
  const scope = chain.paths.at(-1) ?? null;
  return new BudgetError({
    reason: 'store_unreachable',
    scope,
    message: `budget scope "${scope}" refused the call: the budget was closed (close()); a closed budget refuses every call`,
  });
}

/** The store answered that it is misconfigured (a Redis Cluster node as a url): never a fallback's case. */
export function misconfigured(chain: Chain, error: unknown): BudgetError {
  const scope = chain.paths.at(-1) ?? null;
  return new BudgetError({
    reason: 'store_misconfigured',
    scope,
    message: `budget scope "${scope}" refused the call: its store is misconfigured (${messageOf(error)}); calls are refused until the configuration is fixed, and no fallback is used for it`,
    cause: error,
  });
}

/** How many times an acquisition is asked again with the windows of the store's clock. */
export const MAX_WINDOW_TRIES = 3;

/** The store's clock kept moving past window boundaries while the call asked (or a store gave no time). */
export function windowsMoving(chain: Chain, result: AcquireResult): BudgetError {
  const scope = chain.paths.at(-1) ?? null;
  const at = !result.granted && result.nowMs !== undefined ? new Date(result.nowMs).toISOString() : 'unknown';
  return new BudgetError({
    reason: 'store_unreachable',
    scope,
    message: `budget scope "${scope}" refused the call: the store's clock (${at}) was in another calendar window each time the call asked (${MAX_WINDOW_TRIES} times)`,
  });
}

export function tooDear(model: string, scope: string, worstUsd: number): BudgetError {
  return new BudgetError({
    reason: 'spend',
    scope,
    requestedUsd: worstUsd,
    message: `budget scope "${scope}" refused a call of ${model}: its worst case of ${worstUsd} USD is beyond what a budget counts exactly (at most ${usdOf(MAX_CALL_NANO_USD)} USD per call)`,
  });
}

export function spendError(
  model: string,
  scope: string,
  limit: number,
  result: Extract<AcquireResult, { granted: false }>,
  ask: AttemptAsk,
  reason: 'spend' | 'reserved',
  given: string,
  retryAfterMs: number | null = null,
): BudgetError {
  // The call's worst case at its own cap (the one it asked for), not at the last cap it was fitted to.
  const amount = ask.askedAmount;
  const needs = `this call needs up to ${formatUsd(amount)}`;
  const floor = ask.minTokens;
  const cap = ask.askedCap;
  let tail: string;
  if (floor === null || cap === null) tail = `${needs}${given}`;
  else if (cap <= floor)
    tail = `${needs}${given}; its cap of ${cap} output tokens is not above the floor it may be fitted to (fitMaxTokens.minTokens ${floor})`;
  else {
    // A call that could be fitted: its own cap, the cap its last try was fitted to (what `given`
    // speaks of), and that even its floor does not fit, at the floor's worst case.
    const fitted = ask.lowered ? `; fitted to ${ask.cap} output tokens (up to ${formatUsd(ask.amount)})` : '';
    tail = `${needs} at its cap of ${cap} output tokens${fitted}${given}; not even with max_tokens lowered to ${floor} (fitMaxTokens.minTokens), up to ${formatUsd(ask.amountAt(floor))}, does it fit`;
  }
  const { spentNanoUsd, reservedNanoUsd, unsettledNanoUsd } = result.counters;
  const unsettled =
    unsettledNanoUsd > 0 ? ` (${formatUsd(unsettledNanoUsd)} of it unsettled worst cases)` : '';
  return new BudgetError({
    reason,
    scope,
    limitUsd: usdOf(limit),
    spentUsd: usdOf(spentNanoUsd),
    reservedUsd: usdOf(reservedNanoUsd),
    requestedUsd: usdOf(amount),
    retryAfterMs,
    message: `budget scope "${scope}" refused a call of ${model}: limit ${formatUsd(limit)}${retryAfterMs === null ? '' : ` in its window (it ends in ${retryAfterMs} ms)`}, spent ${formatUsd(spentNanoUsd)}${unsettled}, reserved ${formatUsd(reservedNanoUsd)} by calls in flight, ${tail}`,
  });
}

/** What a call blocked only by reservations is told: it fits once the calls in flight settle, but `why` not. */
export function fitsOnceSettled(why: string): string {
  return `; it fits once calls in flight settle, but ${why}`;
}

/**
 * The store's server answered but gave up waiting (a row lock held elsewhere past its timeout): a busy
 * store is not an unreachable one, so the call ends as a timeout, as a deadline passed while waiting does.
 */
export function storeTimedOut(chain: Chain, error: unknown): ChatError {
  const scope = chain.paths.at(-1) ?? null;
  return new ChatError({
    kind: 'timeout',
    message: `the call timed out before it was sent, while budget scope "${scope}" waited for its store, which answers but did not reserve in time (${messageOf(error)})`,
    cause: error,
    retryable: false,
  });
}

/** A wait for a slot or for room ended by the call's signal: its deadline (a `timeout`), else its caller. */
export function cancelled(signal: AbortSignal): ChatError {
  const reason: unknown = signal.reason;
  if (ChatError.isInstance(reason) && reason.kind === 'timeout') {
    return new ChatError({
      kind: 'timeout',
      message: `the call passed its deadline before it was sent, while waiting for its budget (a slot, or room held by calls in flight): ${reason.message}`,
      cause: reason,
      retryable: false,
    });
  }
  return abortedError(signal);
}

function abortedError(signal: AbortSignal): ChatError {
  return new ChatError({
    kind: 'aborted',
    message:
      'the call was cancelled before it was sent (while waiting for a budget slot or for room held by calls in flight)',
    cause: signal.reason,
  });
}

function formatUsd(nanoUsd: number): string {
  return `$${usdOf(nanoUsd).toFixed(6)}`;
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
