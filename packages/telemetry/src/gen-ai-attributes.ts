import { endpointLabel } from './endpoint-label.js';
import type { OtelAttributes } from './otel-api.js';
import type { EndpointInfo, TelemetryRecord } from './telemetry-record.js';
import type { UsageTokens } from './usage-tokens.js';

// Attribute names of the OpenTelemetry GenAI semantic conventions (moved from
// open-telemetry/semantic-conventions to semantic-conventions-genai; names
// unchanged), checked against the registry. The cost attributes are the proposal
// of open-telemetry/semantic-conventions-genai#443: source `provider` when the
// amount came in the response (a gateway counts as the provider), else `local`.
export const GEN_AI = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  responseId: 'gen_ai.response.id',
  finishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cacheReadTokens: 'gen_ai.usage.cache_read.input_tokens',
  reasoningTokens: 'gen_ai.usage.reasoning.output_tokens',
  costAmount: 'gen_ai.usage.cost.amount',
  costCurrency: 'gen_ai.usage.cost.currency',
  costSource: 'gen_ai.usage.cost.source',
  tokenType: 'gen_ai.token.type',
  errorType: 'error.type',
} as const;

/** Switchboard's own span attributes. */
export const SWITCHBOARD = {
  route: 'switchboard.route',
  role: 'switchboard.role',
  attempts: 'switchboard.attempts',
  priceVersion: 'switchboard.price.version',
  priceBand: 'switchboard.price.band',
} as const;

/** What every span and metric point of one observer shares. */
export interface CallContext {
  readonly providerName: string;
  readonly route: string;
}

/** The context of an observer for `endpoint`. */
export function callContext(
  endpoint: EndpointInfo | null | undefined,
  route: string | undefined,
): CallContext {
  return {
    providerName: endpoint?.provider ?? 'unknown',
    route: route ?? endpointLabel(endpoint),
  };
}

/** The attributes a span starts with (samplers see them). */
export function startAttributes(record: TelemetryRecord, context: CallContext): OtelAttributes {
  return {
    [GEN_AI.operationName]: 'chat',
    [GEN_AI.providerName]: context.providerName,
    [GEN_AI.requestModel]: record.model,
  };
}

/** The rest of a recorded call's attributes; absent facts are left out, never sent as empty values. */
export function resultAttributes(
  record: TelemetryRecord,
  tokens: UsageTokens,
  context: CallContext,
): OtelAttributes {
  const attributes: OtelAttributes = {
    [SWITCHBOARD.route]: record.route ?? context.route,
    [SWITCHBOARD.attempts]: record.attempts,
  };
  if (record.role) attributes[SWITCHBOARD.role] = record.role;
  if (record.responseModel) attributes[GEN_AI.responseModel] = record.responseModel;
  if (record.responseId) attributes[GEN_AI.responseId] = record.responseId;
  const finishReasons = record.finishReasons ?? (record.finishReason ? [record.finishReason] : null);
  if (finishReasons && finishReasons.length > 0) attributes[GEN_AI.finishReasons] = [...finishReasons];
  if (tokens.known) {
    attributes[GEN_AI.inputTokens] = tokens.input;
    attributes[GEN_AI.outputTokens] = tokens.output;
    attributes[GEN_AI.cacheReadTokens] = tokens.cacheRead;
    attributes[GEN_AI.reasoningTokens] = tokens.reasoning;
  }
  if (typeof record.costUsd === 'number') {
    attributes[GEN_AI.costAmount] = record.costUsd;
    attributes[GEN_AI.costCurrency] = 'USD';
    attributes[GEN_AI.costSource] = record.priceSource === 'provider' ? 'provider' : 'local';
  }
  if (record.priceVersion) attributes[SWITCHBOARD.priceVersion] = record.priceVersion;
  const band = priceBand(record.tariff);
  if (band !== null) attributes[SWITCHBOARD.priceBand] = band;
  if (record.error) attributes[GEN_AI.errorType] = record.error.kind;
  return attributes;
}

/** The tariff band that priced the call (`tariff.band`), or null for flat prices. */
export function priceBand(tariff: unknown): string | null {
  if (typeof tariff !== 'object' || tariff === null) return null;
  const band = (tariff as { band?: unknown }).band;
  return typeof band === 'string' ? band : null;
}
