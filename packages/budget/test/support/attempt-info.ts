import type { AttemptInfo, CallRecord } from '@switchboard/adapter';
import type { Prices } from '@switchboard/prices';

/** Prices where one output token costs exactly $1 and prompts are free: a call's worst case is its `maxTokens` in USD. */
export const DOLLAR_PER_OUTPUT_TOKEN: Prices = Object.freeze({
  cacheHitPerM: 0,
  inputPerM: 0,
  outputPerM: 1_000_000,
});

/** An attempt as the adapter describes it, for a model priced by {@link DOLLAR_PER_OUTPUT_TOKEN}. */
export function attemptInfo(overrides: Partial<AttemptInfo> = {}): AttemptInfo {
  return {
    model: 'test-model',
    attempt: 1,
    role: null,
    messages: [{ role: 'user', content: 'Is this line safe?' }],
    tools: undefined,
    maxTokens: 3,
    signal: undefined,
    ...overrides,
  };
}

/** A call record of `costUsd`, as the adapter makes one after a reply. */
export function callRecord(costUsd: number | null, overrides: Partial<CallRecord> = {}): CallRecord {
  return {
    model: 'test-model',
    usage: { prompt_tokens: 10, completion_tokens: 2 },
    costUsd,
    costNanoUsd: costUsd === null ? null : Math.round(costUsd * 1e9),
    pricedAs: costUsd === null ? null : 'test-model',
    priceSource: costUsd === null ? null : 'table',
    tariff: null,
    at: new Date().toISOString(),
    durationMs: 1,
    attempts: 1,
    streamed: false,
    firstDeltaMs: null,
    settlement: 'exact',
    ...overrides,
  };
}
