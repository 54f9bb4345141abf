import { boundedString } from './bounded-string.js';
import type { CostAmounts } from './cost-amounts.js';
import type { OtelAttributes } from './otel-api.js';
import type { OtelConventions } from './otel-conventions.js';
import type { ReportedTokens } from './reported-tokens.js';
import type { ServerFacts } from './server-of.js';
import type { TelemetryRecord } from './telemetry-record.js';

// Attribute names of the OpenTelemetry GenAI semantic conventions: v1.41.0 of
// open-telemetry/semantic-conventions (model/gen-ai/registry.yaml, docs/gen-ai/gen-ai-spans.md)
// and the current open-telemetry/semantic-conventions-genai (docs/gen-ai/client-inference.md),
// which renamed the cache-write count (`cacheCreationTokens` in v1.41.0, `cacheWriteTokens`
// now) and added `gen_ai.token.modality` to its usage counters. A span's cost is in
// `llm.cost.total` (OPENINFERENCE_COST_TOTAL below), never under `gen_ai.usage.`: see there.
export const GEN_AI = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  requestMaxTokens: 'gen_ai.request.max_tokens',
  requestTemperature: 'gen_ai.request.temperature',
  outputType: 'gen_ai.output.type',
  requestStream: 'gen_ai.request.stream',
  timeToFirstChunk: 'gen_ai.response.time_to_first_chunk',
  responseModel: 'gen_ai.response.model',
  responseId: 'gen_ai.response.id',
  finishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cacheReadTokens: 'gen_ai.usage.cache_read.input_tokens',
  cacheCreationTokens: 'gen_ai.usage.cache_creation.input_tokens',
  cacheWriteTokens: 'gen_ai.usage.cache_write.input_tokens',
  reasoningTokens: 'gen_ai.usage.reasoning.output_tokens',
  /** The cost counter's currency attribute in the latest mode (the cost proposal's, a metric attribute only). */
  costCurrency: 'gen_ai.usage.cost.currency',
  tokenType: 'gen_ai.token.type',
  tokenModality: 'gen_ai.token.modality',
  serverAddress: 'server.address',
  serverPort: 'server.port',
  errorType: 'error.type',
} as const;

/** Switchboard's own attributes. */
export const SWITCHBOARD = {
  route: 'switchboard.route',
  role: 'switchboard.role',
  attempts: 'switchboard.attempts',
  priceVersion: 'switchboard.price.version',
  priceBand: 'switchboard.price.band',
  /** Where the ledger's price came from: `table`, `endpoint` or `provider`. */
  priceSource: 'switchboard.price.source',
  /** The call's cost in Switchboard's ledger (the price table's figure when it priced the call), USD. */
  costAmount: 'switchboard.cost.amount',
  /** When the price entry that priced the call was last checked (an ISO date). */
  priceCheckedAt: 'switchboard.price.checked_at',
  /** The provider's own figure (`usage.cost`), USD, for a call the ledger priced locally: what it is reconciled with. */
  costProviderAmount: 'switchboard.cost.provider_amount',
  /** `(ledger − provider) / provider` for such a call whose provider figure is above 0: its drift. */
  costDrift: 'switchboard.cost.drift',
} as const;

/**
 * The call's cost on a span, USD, in both modes: OpenInference's `llm.cost.total`, which Arize Phoenix
 * and Langfuse read as a call's total cost. Not the cost proposal's `gen_ai.usage.cost.amount`
 * (semantic-conventions-genai pull request 443, unreleased): Langfuse takes every `gen_ai.usage.*`
 * attribute but `gen_ai.usage.cost` for a token count, so that amount would be shown as tokens.
 */
const OPENINFERENCE_COST_TOTAL = 'llm.cost.total';

/** The currency of every cost amount. */
export const COST_CURRENCY = 'USD';

// Finish reasons are one per choice: a reply with thousands of choices is cut.
const MAX_FINISH_REASONS = 16;
const MAX_FINISH_REASON_LENGTH = 64;

/** What every span and metric point of one observer shares. */
export interface CallContext {
  readonly providerName: string;
  readonly route: string;
  readonly server: ServerFacts | null;
  readonly conventions: OtelConventions;
}

/** The attributes a span starts with, so samplers see them: the operation, provider, server and request. */
export function startAttributes(record: TelemetryRecord, context: CallContext): OtelAttributes {
  const attributes: OtelAttributes = {
    [GEN_AI.operationName]: 'chat',
    [GEN_AI.providerName]: context.providerName,
    [GEN_AI.requestModel]: boundedString(record.model),
  };
  if (context.server !== null) {
    attributes[GEN_AI.serverAddress] = context.server.address;
    attributes[GEN_AI.serverPort] = context.server.port;
  }
  if (record.jsonObject === true) attributes[GEN_AI.outputType] = 'json';
  // Set if and only if the request streamed: unset means not streamed.
  if (record.streamed === true) attributes[GEN_AI.requestStream] = true;
  if (isCount(record.maxTokens)) attributes[GEN_AI.requestMaxTokens] = record.maxTokens;
  if (typeof record.temperature === 'number' && Number.isFinite(record.temperature)) {
    attributes[GEN_AI.requestTemperature] = record.temperature;
  }
  return attributes;
}

/** The rest of a recorded call's attributes; facts the call did not report are left out, never sent as 0. */
export function resultAttributes(
  record: TelemetryRecord,
  tokens: ReportedTokens,
  cost: CostAmounts,
  context: CallContext,
): OtelAttributes {
  const attributes: OtelAttributes = {
    [SWITCHBOARD.route]: boundedString(record.route ?? context.route),
    [SWITCHBOARD.attempts]: record.attempts,
  };
  if (record.role) attributes[SWITCHBOARD.role] = boundedString(record.role);
  if (record.responseModel) attributes[GEN_AI.responseModel] = boundedString(record.responseModel);
  if (record.responseId) attributes[GEN_AI.responseId] = boundedString(record.responseId);
  const finishReasons = finishReasonsOf(record, context.conventions);
  if (finishReasons.length > 0) attributes[GEN_AI.finishReasons] = finishReasons;
  if (tokens.input !== null) attributes[GEN_AI.inputTokens] = tokens.input;
  if (tokens.output !== null) attributes[GEN_AI.outputTokens] = tokens.output;
  if (tokens.cacheRead !== null) attributes[GEN_AI.cacheReadTokens] = tokens.cacheRead;
  if (tokens.cacheWrite !== null) attributes[cacheWriteName(context.conventions)] = tokens.cacheWrite;
  if (tokens.reasoning !== null) attributes[GEN_AI.reasoningTokens] = tokens.reasoning;
  // What the call cost, as the provider billed it when its reply said (else the ledger's figure); never an estimate.
  if (cost.reported !== null) attributes[OPENINFERENCE_COST_TOTAL] = cost.reported.amount;
  if (cost.ledger !== null) attributes[SWITCHBOARD.costAmount] = cost.ledger;
  // The reconciliation the meter and the report make, call by call: a local price beside the provider's figure.
  if (cost.drift !== null && cost.reported !== null) {
    attributes[SWITCHBOARD.costProviderAmount] = cost.reported.amount;
    attributes[SWITCHBOARD.costDrift] = cost.drift;
  }
  const checkedAt = (record as { readonly priceCheckedAt?: unknown }).priceCheckedAt;
  if (typeof checkedAt === 'string' && checkedAt !== '')
    attributes[SWITCHBOARD.priceCheckedAt] = boundedString(checkedAt);
  if (record.priceSource) attributes[SWITCHBOARD.priceSource] = record.priceSource;
  if (record.priceVersion) attributes[SWITCHBOARD.priceVersion] = boundedString(record.priceVersion);
  const band = priceBand(record.tariff);
  if (band !== null) attributes[SWITCHBOARD.priceBand] = boundedString(band);
  const firstChunk = firstChunkSeconds(record);
  if (firstChunk !== null) attributes[GEN_AI.timeToFirstChunk] = firstChunk;
  if (record.error) attributes[GEN_AI.errorType] = record.error.kind;
  return attributes;
}

/**
 * A streamed call's time to its first chunk, in seconds (the record's `firstDeltaMs`:
 * from the call's start to its first delta); null for a call that was not streamed
 * or whose stream ended before any delta.
 */
export function firstChunkSeconds(record: TelemetryRecord): number | null {
  if (record.streamed !== true) return null;
  const ms = record.firstDeltaMs;
  return typeof ms === 'number' && Number.isFinite(ms) && ms >= 0 ? ms / 1000 : null;
}

/** The span attribute of cache-write tokens: renamed after v1.41.0. */
function cacheWriteName(conventions: OtelConventions): string {
  return conventions === 'v1.41.0' ? GEN_AI.cacheCreationTokens : GEN_AI.cacheWriteTokens;
}

/** The tariff band that priced the call (`tariff.band`), or null for flat prices. */
export function priceBand(tariff: unknown): string | null {
  if (typeof tariff !== 'object' || tariff === null) return null;
  const band = (tariff as { band?: unknown }).band;
  return typeof band === 'string' ? band : null;
}

/**
 * The finish reasons of the reply's choices. In the latest mode a failed call whose reply gave
 * none (a 401, a timeout, a stream cut before its last event) reports `["error"]`: the current
 * conventions ask for `error` where a finish reason was expected but not received.
 */
function finishReasonsOf(record: TelemetryRecord, conventions: OtelConventions): string[] {
  const reasons = record.finishReasons ?? (record.finishReason ? [record.finishReason] : []);
  if (reasons.length === 0 && record.error && conventions === 'gen_ai_latest_experimental') return ['error'];
  return reasons
    .slice(0, MAX_FINISH_REASONS)
    .filter((reason): reason is string => typeof reason === 'string')
    .map((reason) => boundedString(reason, MAX_FINISH_REASON_LENGTH));
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}
