import { GeneratedTokens } from '../billing/generated-tokens.js';
import type { StreamEvent } from '../chat/stream-events.js';
import { gatewayCost } from '../gateway/gateway-prices.js';

/** Whether `event` is the usage chunk (`choices: []`). */
export function isUsageEvent(event: StreamEvent): boolean {
  return (
    'data' in event &&
    event.data !== '[DONE]' &&
    Array.isArray(event.data.choices) &&
    event.data.choices.length === 0
  );
}

/**
 * Every chunk with a choice gets a running `usage`: the final usage's prompt
 * figures, with the completion tokens of the text sent so far (that chunk's
 * included) and, for the gateway, the cost of those.
 */
export function withRunningUsage(events: StreamEvent[], completion: Record<string, unknown>): StreamEvent[] {
  const final = completion.usage as Record<string, unknown> & {
    prompt_tokens: number;
    prompt_tokens_details: { cached_tokens: number };
  };
  const sofar = new GeneratedTokens();
  return events.map((event) => {
    if (!('data' in event) || event.data === '[DONE]' || isUsageEvent(event)) return event;
    sofar.add(event.data);
    const completionTokens = sofar.completionTokens;
    const usage: Record<string, unknown> = {
      ...final,
      completion_tokens: completionTokens,
      total_tokens: final.prompt_tokens + completionTokens,
      completion_tokens_details: { reasoning_tokens: sofar.reasoningTokens },
    };
    if ('cost' in final) {
      usage.cost = gatewayCost(String(completion.model), {
        promptTokens: final.prompt_tokens,
        cachedTokens: final.prompt_tokens_details.cached_tokens,
        completionTokens,
      });
    }
    return { data: { ...event.data, usage } };
  });
}

/** The usage chunk sent twice in a row. */
export function withDuplicateUsage(events: StreamEvent[]): StreamEvent[] {
  return events.flatMap((event) => (isUsageEvent(event) ? [event, event] : [event]));
}

/** The usage chunk's `usage` replaced by `value`, as given. */
export function withUsage(events: StreamEvent[], value: unknown): StreamEvent[] {
  return events.map((event) =>
    'data' in event && event.data !== '[DONE]' && isUsageEvent(event)
      ? { data: { ...event.data, usage: value } }
      : event,
  );
}
