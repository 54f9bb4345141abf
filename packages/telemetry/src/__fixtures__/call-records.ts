import type { TelemetryRecord } from '../telemetry-record.js';

// Records as the adapter makes them (packages/adapter/src/make-call-record.ts),
// with usage as the emulator's two flavours send it.

/** A judge call to the primary: primary-shaped usage, priced from the table, tariff band off-peak. */
export const PRIMARY_JUDGE_CALL: TelemetryRecord = Object.freeze({
  model: 'primary-flash',
  usage: Object.freeze({
    prompt_tokens: 1200,
    completion_tokens: 300,
    total_tokens: 1500,
    prompt_cache_hit_tokens: 1024,
    prompt_cache_miss_tokens: 176,
    prompt_tokens_details: Object.freeze({ cached_tokens: 1024 }),
    completion_tokens_details: Object.freeze({ reasoning_tokens: 120 }),
  }),
  costUsd: 0.00021,
  costNanoUsd: 210_000,
  pricedAs: 'primary-flash',
  priceSource: 'table',
  tariff: Object.freeze({ entry: '2026-09-01', band: 'off-peak' }),
  priceVersion: '2026.11.1',
  at: '2026-11-23T08:00:10.500Z',
  durationMs: 1500,
  attempts: 2,
  streamed: false,
  firstDeltaMs: null,
  settlement: 'exact',
  role: 'judge',
  error: null,
  responseId: 'chatcmpl-7f3a',
  responseModel: 'primary-flash',
  finishReason: 'stop',
});

/** {@link PRIMARY_JUDGE_CALL} for `model` (priced as itself) at `costNanoUsd`, with `extra` on top. */
export function judgeCallCosting(
  model: string,
  costNanoUsd: number,
  extra: Partial<TelemetryRecord> = {},
): TelemetryRecord {
  return {
    ...PRIMARY_JUDGE_CALL,
    model,
    pricedAs: model,
    costNanoUsd,
    costUsd: costNanoUsd / 1e9,
    ...extra,
  };
}

/** A detector call through the gateway: OpenAI-shaped usage with the provider's own cost. */
export const GATEWAY_DETECTOR_CALL: TelemetryRecord = Object.freeze({
  model: 'primary-v4-pro',
  usage: Object.freeze({
    prompt_tokens: 2000,
    completion_tokens: 500,
    total_tokens: 2500,
    prompt_tokens_details: Object.freeze({ cached_tokens: 1500 }),
    cost: 0.0012,
  }),
  costUsd: 0.0012,
  costNanoUsd: 1_200_000,
  providerCostUsd: 0.0012,
  pricedAs: 'primary-v4-pro',
  priceSource: 'provider',
  tariff: null,
  at: '2026-11-23T08:01:30.000Z',
  durationMs: 800,
  attempts: 1,
  streamed: false,
  firstDeltaMs: null,
  settlement: 'exact',
  role: 'detector',
  error: null,
});

/** {@link PRIMARY_JUDGE_CALL} on a model nothing prices: a reply with usage and no cost. */
export const UNPRICED_MODEL_CALL: TelemetryRecord = Object.freeze({
  ...PRIMARY_JUDGE_CALL,
  model: 'house-model',
  pricedAs: null,
  priceSource: null,
  costUsd: null,
  costNanoUsd: null,
});

/** The cost fields of a call that failed before any usage came back. */
const UNPRICED = {
  usage: null,
  costUsd: null,
  costNanoUsd: null,
  pricedAs: null,
  priceSource: null,
  tariff: null,
} as const;

/** A call the platform refused for its model: a degradation, not a verdict. */
export const REJECTED_CALL: TelemetryRecord = Object.freeze({
  model: 'primary-old',
  ...UNPRICED,
  at: '2026-11-23T08:02:00.000Z',
  durationMs: 40,
  attempts: 1,
  streamed: false,
  firstDeltaMs: null,
  settlement: 'none',
  role: 'judge',
  error: Object.freeze({ kind: 'model_rejected', status: 400, degradation: true }),
});

/** A call that ran out of retries on 429s, made without a role. */
export const RATE_LIMITED_CALL: TelemetryRecord = Object.freeze({
  model: 'primary-flash',
  ...UNPRICED,
  at: '2026-11-23T08:03:00.000Z',
  durationMs: 4200,
  attempts: 3,
  streamed: false,
  firstDeltaMs: null,
  settlement: 'none',
  role: null,
  error: Object.freeze({ kind: 'rate_limited', status: 429, degradation: false }),
});

/**
 * A streamed judge call the caller broke off after some output: no final usage, so its
 * cost is an estimate from what was received (a lower bound); a budget kept its worst case.
 */
export const CUT_STREAM_CALL: TelemetryRecord = Object.freeze({
  model: 'primary-flash',
  usage: null,
  costUsd: 0.00009,
  costNanoUsd: 90_000,
  pricedAs: 'primary-flash',
  priceSource: 'estimate',
  tariff: null,
  at: '2026-11-23T08:04:00.000Z',
  durationMs: 900,
  attempts: 1,
  streamed: true,
  firstDeltaMs: 120,
  settlement: 'estimate',
  role: 'judge',
  error: Object.freeze({ kind: 'aborted', status: null, degradation: false }),
});

/** A detector call that timed out once its request was sent: it may have been billed, nothing says what. */
export const TIMED_OUT_CALL: TelemetryRecord = Object.freeze({
  model: 'primary-v4-pro',
  ...UNPRICED,
  at: '2026-11-23T08:05:00.000Z',
  durationMs: 30_000,
  attempts: 1,
  streamed: false,
  firstDeltaMs: null,
  settlement: 'unsettled',
  role: 'detector',
  error: Object.freeze({ kind: 'timeout', status: null, degradation: false }),
});

/** All four, in call order. */
export const RECORDS: readonly TelemetryRecord[] = [
  PRIMARY_JUDGE_CALL,
  GATEWAY_DETECTOR_CALL,
  REJECTED_CALL,
  RATE_LIMITED_CALL,
];

/**
 * What the four records add up to: calls, failures, degradations, attempts, unpriced,
 * refused, estimated and unsettled calls, and cost. The two failed calls are refused
 * (settled `none`), not unpriced: their models have prices.
 */
export const RECORDS_TOTALS = {
  calls: 4,
  failures: 2,
  degradations: 1,
  attempts: 7,
  unpricedCalls: 0,
  refusedCalls: 2,
  estimatedCalls: 0,
  estimatedCostNanoUsd: 0,
  estimatedCostUsd: 0,
  estimatedCost: '0.000000000',
  unsettledCalls: 0,
  costNanoUsd: 1_410_000,
  costUsd: 0.00141,
  cost: '0.001410000',
} as const;
