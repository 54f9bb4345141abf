import type { ChatAdapter, ChatClient, ChatResponse } from '@switchboard/adapter';
import {
  isAdapterResolution,
  type ResolvedChatEndpoint,
  resolveModels,
  type SwitchboardConfig,
} from '@switchboard/endpoint';
import { BAD_INPUT_EXIT_CODE, CliError } from '../cli-error.js';
import { colors, formatCount, formatUsd } from '../format.js';
import type { Io } from '../io.js';
import { parseNumberOption, parsePositiveInteger } from '../parse-options.js';
import { resolveOrExplain } from '../resolve-endpoint.js';
import { usageTotals } from '../usage-totals.js';

/** Options of `switchboard chat`. */
export interface ChatCommandOptions {
  model?: string;
  json?: boolean;
  logprobs?: boolean;
  temperature?: string;
  maxTokens?: string;
  timeout?: string;
  showReasoning?: boolean;
}

/** The client to call (the resolved one, or its bounded copy) and, on an adapter route, that adapter. */
function callingClient(
  resolved: ResolvedChatEndpoint,
  maxTokens: number | undefined,
): { client: ChatClient; adapter: ChatAdapter | null } {
  if (!isAdapterResolution(resolved)) {
    if (maxTokens !== undefined) {
      throw new CliError(
        '--max-tokens needs a provider endpoint; the scripted client has no output cap',
        BAD_INPUT_EXIT_CODE,
      );
    }
    return { client: resolved.client, adapter: null };
  }
  const adapter = maxTokens === undefined ? resolved.client : resolved.client.bounded(maxTokens);
  return { client: adapter, adapter };
}

/**
 * `switchboard chat PROMPT`: one call through the resolved endpoint (a real
 * provider when its key is set), printing content, optional reasoning, usage and cost.
 */
export async function chatCommand(
  io: Io,
  prompt: string,
  config: SwitchboardConfig,
  options: ChatCommandOptions,
): Promise<void> {
  const temperature =
    options.temperature === undefined
      ? undefined
      : parseNumberOption('temperature', options.temperature, { min: 0, max: 2 });
  const maxTokens =
    options.maxTokens === undefined ? undefined : parsePositiveInteger('max-tokens', options.maxTokens);
  const timeoutSeconds =
    options.timeout === undefined
      ? undefined
      : parseNumberOption('timeout', options.timeout, { min: 0.001, max: 3600 });
  const resolved = resolveOrExplain(config, io.env);
  const { endpoint } = resolved;
  const { client, adapter } = callingClient(resolved, maxTokens);
  // Spec 8, rule 3: the endpoint is priced as the detector model, whatever model a call names.
  const [pricingModel] = resolveModels(config);
  const model = options.model?.trim() || pricingModel;

  const response: ChatResponse = await client.complete({
    model,
    messages: [{ role: 'user', content: prompt }],
    ...(options.json ? { jsonObject: true } : {}),
    ...(options.logprobs ? { logprobs: true } : {}),
    ...(temperature === undefined ? {} : { temperature }),
    ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }),
  });

  const paint = colors(io.color);
  io.stdout(`${response.content ?? ''}\n`);
  if (options.showReasoning) io.stdout(`${paint.dim(`reasoning: ${response.reasoning ?? '(none)'}`)}\n`);
  for (const call of response.toolCalls)
    io.stdout(`tool call: ${call.name} ${JSON.stringify(call.arguments)}\n`);
  const details = [
    `model ${model}`,
    `provider ${endpoint.provider}`,
    `finish ${response.finishReason ?? 'n/a'}`,
  ];
  if (response.meanLogprob !== null) {
    details.push(
      `mean logprob ${response.meanLogprob.toFixed(4)} (confidence ${Math.exp(response.meanLogprob).toFixed(3)})`,
    );
  }
  if (adapter !== null) {
    const totals = usageTotals(adapter.usage, (usage) => endpoint.cost(usage));
    details.push(
      `tokens ${formatCount(totals.cacheHit)} cache hit / ${formatCount(totals.cacheMiss)} cache miss / ${formatCount(totals.output)} output`,
      `cost ${endpoint.prices === null ? 'n/a (no recorded price)' : formatUsd(adapter.costUsd())}${
        model === pricingModel ? '' : ` (priced as ${pricingModel}, the endpoint's pricing model)`
      }`,
    );
  } else {
    details.push('usage not recorded (scripted client)');
  }
  io.stderr(`${paint.dim(details.join(' · '))}\n`);
}
