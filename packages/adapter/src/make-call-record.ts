import { newCallId, processHost } from './call-identity.js';
import type { CallRecord } from './call-record.js';
import { ChatError } from './chat-error.js';
import type { PricingOutcome } from './price-call.js';
import type { CallFacts, RawCallSetup } from './raw-call.js';
import type { UsageEntry } from './usage-entry.js';

/** The frozen record of one raw call, from what the call did and how it was priced. */
export function makeCallRecord(
  call: Pick<RawCallSetup, 'request' | 'role' | 'tenant' | 'maxTokens' | 'jsonObject' | 'temperature'>,
  facts: CallFacts,
  usage: UsageEntry | null,
  pricing: PricingOutcome,
): CallRecord {
  const record: { -readonly [K in keyof CallRecord]: CallRecord[K] } = {
    callId: facts.callId ?? newCallId(),
    host: processHost(),
    pid: process.pid,
    model: call.request.model,
    usage,
    costUsd: pricing.costUsd,
    costNanoUsd: pricing.costNanoUsd,
    pricedAs: pricing.pricedAs,
    priceSource: pricing.priceSource,
    tariff: pricing.tariff,
    priceCheckedAt: pricing.priceCheckedAt,
    at: facts.at.toISOString(),
    durationMs: facts.durationMs,
    attempts: facts.attempts,
    role: call.role,
    tenant: call.tenant,
    jsonObject: call.jsonObject,
    maxTokens: facts.maxTokensLowered?.to ?? call.maxTokens,
    temperature: call.temperature,
    responseId: facts.responseId,
    responseModel: facts.responseModel,
    finishReason: facts.finishReason,
    streamed: facts.streamed ?? false,
    firstDeltaMs: facts.firstDeltaMs ?? null,
    settlement: facts.settlement,
    error: facts.error === null ? null : failureOf(facts.error),
  };
  // Only when set: records without them keep their shape.
  if (facts.maxTokensLowered) record.maxTokensLowered = facts.maxTokensLowered;
  if (facts.budgets !== undefined) record.budgets = facts.budgets;
  if (pricing.providerCostUsd !== undefined) record.providerCostUsd = pricing.providerCostUsd;
  if (pricing.priceVersion !== undefined) record.priceVersion = pricing.priceVersion;
  if (pricing.costError !== null) record.costError = pricing.costError;
  return Object.freeze(record);
}

// A transport that fails with something other than a ChatError (a stub) failed without
// saying how: it is recorded as a connection failure.
function failureOf(error: unknown): NonNullable<CallRecord['error']> {
  if (!ChatError.isInstance(error))
    return Object.freeze({ kind: 'connection', status: null, degradation: false });
  return Object.freeze({ kind: error.kind, status: error.status, degradation: error.degradation });
}
