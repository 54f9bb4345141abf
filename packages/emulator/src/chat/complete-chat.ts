import type { EmulatorFlavor } from '../gateway/emulator-flavor.js';
import { gatewayCost } from '../gateway/gateway-prices.js';
import { buildReasoningDetails, type ReasoningLedger } from '../gateway/reasoning-details.js';
import type { PrefixCache } from '../tokens/prefix-cache.js';
import { promptTokens } from '../tokens/prompt-tokens.js';
import { countTokens, truncateToTokens } from '../tokens/tokenize.js';
import { answerText, reasoningText } from './answer-text.js';
import { buildLogprobs } from './build-logprobs.js';
import type { ChatRequest } from './chat-request.js';
import { hashText } from './seeded-random.js';
import { planToolCalls, type ReplyToolCall } from './tool-calls.js';

/** What a completion needs beside the request. */
export interface CompletionContext {
  /** A per-emulator counter, different for every completion: the source of variation. */
  readonly sequence: number;
  readonly cache: PrefixCache;
  /** Answer with empty content (the JSON-mode quirk, or a fault). */
  readonly emptyContent: boolean;
  /** Fixed answer length in tokens, or null for the default length. */
  readonly answerTokens: number | null;
  /** Which platform answers. Default `primary`. */
  readonly flavor?: EmulatorFlavor;
  /** Where the gateway records the `reasoning_details` it sends with tool calls. */
  readonly ledger?: ReasoningLedger;
}

/**
 * Answers a validated chat request as the platform would. While thinking, the
 * primary platform's reply carries `reasoning_content`, the temperature is
 * ignored and the answer varies between identical requests; with thinking off
 * the answer is a function of the request, varying only when the temperature
 * is above 0. The gateway's reply carries `reasoning` and `reasoning_details`
 * instead, honours the temperature even while reasoning, and has OpenAI-style
 * usage with a `cost` in USD.
 */
export function completeChat(request: ChatRequest, context: CompletionContext): Record<string, unknown> {
  const gateway = context.flavor === 'gateway';
  const varies = (request.thinking && !gateway) || request.temperature > 0;
  const fixed = JSON.stringify([request.model, request.messages, request.rawTools ?? null, request.jsonMode]);
  const seed = `${fixed} ${request.thinking ? 'thinking' : request.temperature}${varies ? ` #${context.sequence}` : ''}`;

  // The platform counts reasoning within `max_tokens`: what is left after the reasoning bounds the rest.
  const fullReasoning = request.thinking ? reasoningText(request.messages, seed) : null;
  const reasoning =
    fullReasoning === null || request.maxTokens === null
      ? fullReasoning
      : truncateToTokens(fullReasoning, request.maxTokens);
  const reasoningTokens = reasoning === null ? 0 : countTokens(reasoning);
  const left = request.maxTokens === null ? null : request.maxTokens - reasoningTokens;
  const cut = reasoning !== fullReasoning;

  const planned = cut ? [] : planToolCalls(request, seed);
  const toolCalls = fitToolCalls(planned, left);
  let content = '';
  let finishReason = 'tool_calls';
  if (planned.length === 0) {
    const answer = answerText(request.messages, seed, context.answerTokens);
    const full = context.emptyContent
      ? ''
      : request.jsonMode
        ? JSON.stringify({ answer, findings: [] })
        : answer;
    content = left === null ? full : truncateToTokens(full, left);
    finishReason = cut || content.length < full.length ? 'length' : 'stop';
  } else if (toolCalls.length < planned.length) {
    finishReason = 'length';
  }

  const message: Record<string, unknown> = { role: 'assistant', content };
  if (reasoning !== null && gateway) {
    const details = buildReasoningDetails(reasoning, `${seed} ${context.sequence}`);
    message.reasoning = reasoning;
    message.reasoning_details = details;
    context.ledger?.remember(
      toolCalls.map((call) => call.id),
      details,
    );
  } else if (reasoning !== null) {
    message.reasoning_content = reasoning;
  }
  if (toolCalls.length > 0) message.tool_calls = toolCalls;

  const prompt = promptTokens({ messages: request.messages, tools: request.rawTools });
  const hits = context.cache.lookupAndStore(request.model, prompt);
  const callTokens = toolCalls.reduce((sum, call) => sum + toolCallTokens(call), 0);
  const completionTokens = countTokens(content) + reasoningTokens + callTokens;

  const usage = gateway
    ? {
        prompt_tokens: prompt.length,
        completion_tokens: completionTokens,
        total_tokens: prompt.length + completionTokens,
        prompt_tokens_details: { cached_tokens: hits },
        completion_tokens_details: { reasoning_tokens: reasoningTokens },
        cost: gatewayCost(request.model, {
          promptTokens: prompt.length,
          cachedTokens: hits,
          completionTokens,
        }),
      }
    : {
        prompt_tokens: prompt.length,
        completion_tokens: completionTokens,
        total_tokens: prompt.length + completionTokens,
        prompt_cache_hit_tokens: hits,
        prompt_cache_miss_tokens: prompt.length - hits,
        prompt_tokens_details: { cached_tokens: hits },
        completion_tokens_details: { reasoning_tokens: reasoningTokens },
      };
  const id = `${hashText(`${seed} ${context.sequence}`)}${context.sequence.toString(16)}`;
  return {
    id: gateway ? `gen-${id}` : `chatcmpl-${id}`,
    ...(gateway ? { provider: 'primary' } : {}),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: request.model,
    choices: [
      {
        index: 0,
        message,
        logprobs: request.logprobs ? buildLogprobs(content, request.topLogprobs) : null,
        finish_reason: finishReason,
      },
    ],
    usage,
    system_fingerprint: 'fp_switchboard_emulator',
  };
}

/** The completion tokens a tool call costs: its name and arguments text. */
function toolCallTokens(call: ReplyToolCall): number {
  return countTokens(`${call.function.name} ${call.function.arguments}`);
}

/** The leading calls that fit whole in `left` tokens (all of them when there is no cap). */
function fitToolCalls(calls: ReplyToolCall[], left: number | null): ReplyToolCall[] {
  if (left === null) return calls;
  let used = 0;
  const fitting: ReplyToolCall[] = [];
  for (const call of calls) {
    used += toolCallTokens(call);
    if (used > left) break;
    fitting.push(call);
  }
  return fitting;
}
