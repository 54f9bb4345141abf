import type { CostModel } from '@switchboard/adapter';
import { canonicalJson } from './canonical-json.js';

/**
 * How the cost model prices a reply's usage, as the adapter asks it (`priceCall`
 * with the model and reply time, else `cost(usage)` as the endpoint's price), as
 * plain JSON; null without a cost model or usage, or when the cost model throws.
 */
export function pricingOf(
  costModel: CostModel | null,
  model: string,
  usage: unknown,
): Record<string, unknown> | null {
  if (costModel === null || !isPlainObject(usage)) return null;
  try {
    const pricing =
      typeof costModel.priceCall === 'function'
        ? costModel.priceCall({ model, usage, at: new Date() })
        : {
            costUsd: costModel.cost(usage),
            pricedAs: typeof costModel.pricingModel === 'string' ? costModel.pricingModel : null,
            priceSource: 'endpoint',
            tariff: null,
          };
    return JSON.parse(JSON.stringify(pricing)) as Record<string, unknown>;
  } catch {
    return null;
  }
}

/** The key a recorded pricing is found by in replay: the call's model and usage, canonically. */
export function pricingKey(model: string, usage: unknown): string {
  return canonicalJson({ model, usage });
}

/** The `usage` of a plain reply, or of the last streamed chunk that carried one. */
export function usageOfEvents(events: readonly object[]): unknown {
  for (let index = events.length - 1; index >= 0; index -= 1) {
    const data = (events[index] as { data?: unknown } | undefined)?.data;
    if (typeof data !== 'string') continue;
    if (data === '[DONE]') continue;
    try {
      const chunk = JSON.parse(data) as unknown;
      if (isPlainObject(chunk) && isPlainObject(chunk.usage)) return chunk.usage;
    } catch {
      // not JSON: no usage in it
    }
  }
  return null;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
