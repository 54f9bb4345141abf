import type { AttemptInfo, CallRecord } from '@switchboard/adapter';
import { priceOf } from '@switchboard/prices';
import { BENCH_MESSAGES, BENCH_MODEL } from './settings.js';

/** The prices the budget rows reserve at: the bench model's. */
export const BUDGET_PRICES = priceOf(BENCH_MODEL) ?? { cacheHitPerM: 0, inputPerM: 0, outputPerM: 0 };

/** The attempt every reserve + settle row describes: the bench's two messages, capped at 256 tokens. */
export const BUDGET_INFO: AttemptInfo = Object.freeze({
  model: BENCH_MODEL,
  attempt: 1,
  role: null,
  messages: BENCH_MESSAGES,
  tools: undefined,
  maxTokens: 256,
  signal: undefined,
});

/** The record each of those attempts settles with. */
export const BUDGET_RECORD: CallRecord = Object.freeze({
  model: BENCH_MODEL,
  usage: Object.freeze({ prompt_tokens: 40, completion_tokens: 20 }),
  costUsd: 0.000_043_2,
  pricedAs: BENCH_MODEL,
  priceSource: 'table',
  tariff: null,
  at: '2026-11-23T00:00:00.000Z',
  durationMs: 1,
  attempts: 1,
  streamed: false,
  firstDeltaMs: null,
});
