import {
  type ChatAdapter,
  type ChatClient,
  ChatError,
  type ChatResponse,
  type CompleteRequest,
} from '@switchboard/adapter';
import { isAdapterResolution, type ResolvedChatEndpoint, resolveModels } from '@switchboard/endpoint';
import { BAD_INPUT_EXIT_CODE, CliError } from '../cli-error.js';
import { configEntryName } from '../config-price-book.js';
import { colors, formatConfidence, formatCount, formatNanoUsdText } from '../format.js';
import type { Io } from '../io.js';
import type { CliConfig } from '../load-config.js';
import { parseNumberOption, parsePositiveInteger } from '../parse-options.js';
import { plural } from '../plural.js';
import { resolveOrExplain } from '../resolve-endpoint.js';
import { startSpinner } from '../spinner.js';
import { safeJson, safeJsonLine, safeText } from '../terminal-text.js';
import { unsetKeyWarning } from '../unset-key-warning.js';
import { usageTotals } from '../usage-totals.js';
import { type CallPricingSummary, callPricing, describePricing } from './call-pricing.js';
import { streamChat } from './stream-chat.js';

/** Options of `switchboard chat`. */
export interface ChatCommandOptions {
  model?: string;
  /** Machine-readable output on stdout. */
  json?: boolean;
  /** JSON mode for the request (`response_format: json_object`). */
  jsonMode?: boolean;
  logprobs?: boolean;
  temperature?: string;
  maxTokens?: string;
  timeout?: string;
  showReasoning?: boolean;
  /** Stream the answer: print it as it arrives (`--json`: NDJSON deltas, then the final record). */
  stream?: boolean;
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

async function readPrompt(io: Io, prompt: string): Promise<string> {
  let text = prompt;
  if (prompt === '-') {
    if (io.readStdin === undefined)
      throw new CliError('chat -: stdin cannot be read here', BAD_INPUT_EXIT_CODE);
    // The newline `echo` and editors end a file with is not part of the question.
    text = (await io.readStdin()).replace(/\r?\n$/, '');
  }
  if (text.trim() === '') {
    throw new CliError(
      `the prompt is empty${prompt === '-' ? ' (nothing on stdin)' : ''}: nothing was sent`,
      BAD_INPUT_EXIT_CODE,
    );
  }
  return text;
}

function costLine(
  pricing: CallPricingSummary | null,
  pricingModel: string,
  model: string,
  configEntry: string | null,
): string {
  if (pricing === null || pricing.costNanoUsd === null) {
    return `cost unpriced (no price for model ${safeText(JSON.stringify(model))}: counted as $0)`;
  }
  return `cost ${formatNanoUsdText(pricing.costNanoUsd)} (${describePricing(pricing, pricingModel, configEntry)})`;
}

/**
 * `switchboard chat PROMPT`: one call through the resolved endpoint (a real
 * provider when its key is set), printing content, optional reasoning, usage
 * and cost, or all of it as one JSON document with `--json`.
 */
export async function chatCommand(
  io: Io,
  prompt: string,
  loaded: CliConfig,
  options: ChatCommandOptions,
): Promise<void> {
  const { config } = loaded;
  const temperature =
    options.temperature === undefined
      ? undefined
      : parseNumberOption('temperature', options.temperature, { min: 0, max: 2 });
  const maxTokens =
    options.maxTokens === undefined ? undefined : parsePositiveInteger('max-tokens', options.maxTokens);
  // The adapter checks the number where the request enters; '' and words become NaN, which it refuses.
  const timeoutSeconds =
    options.timeout === undefined
      ? undefined
      : options.timeout.trim() === ''
        ? Number.NaN
        : Number(options.timeout);
  const content = await readPrompt(io, prompt);

  // Each attempt of the call (its retries included), for the spinner and the timeout message.
  let attempts = 0;
  let onAttempt = (_attempt: number) => {};
  let stopCounting = () => {};
  let response: ChatResponse;
  let resolved: ReturnType<typeof resolveOrExplain>;
  let client: ChatClient;
  let adapter: ChatAdapter | null;
  let pricingModel: string;
  let model: string;
  let shownReasoning = false;
  try {
    resolved = resolveOrExplain(config, io.env);
    const warning = resolved.rule === 'configured' ? unsetKeyWarning(config, io.env) : null;
    if (warning !== null) io.stderr(`switchboard: ${warning}\n`);
    // Resolution rule 3: the endpoint is priced as the detector model, whatever model a call names.
    [pricingModel] = resolveModels(config);
    model = options.model?.trim() || pricingModel;
    ({ client, adapter } = callingClient(resolved, maxTokens));
    if (adapter !== null) {
      stopCounting = adapter.observe({
        beforeAttempt: () => {
          onAttempt(++attempts);
        },
      });
    }
    const spinner = startSpinner({
      write: io.stderr,
      enabled: io.stderrIsTty === true,
      label: `${safeText(model)} via ${resolved.endpoint.provider}`,
    });
    onAttempt = (attempt) => spinner.attempt(attempt);
    const request: CompleteRequest = {
      model,
      messages: [{ role: 'user', content }],
      ...(options.jsonMode ? { jsonObject: true } : {}),
      ...(options.logprobs ? { logprobs: true } : {}),
      ...(temperature === undefined ? {} : { temperature }),
      ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }),
    };
    try {
      if (options.stream) {
        ({ response, shownReasoning } = await streamChat(io, client, request, spinner, {
          json: options.json === true,
          showReasoning: options.showReasoning === true,
        }));
      } else {
        response = await client.complete(request);
      }
    } finally {
      spinner.stop();
    }
  } catch (error) {
    if (error instanceof RangeError && options.timeout !== undefined && attempts === 0) {
      // The flag is what the user wrote: the adapter's own name for the field is not theirs.
      const reason = error.message.replace(/^[\w.]*timeoutSeconds /, '');
      throw new CliError(`--timeout '${options.timeout}': ${reason}`, BAD_INPUT_EXIT_CODE);
    }
    if (ChatError.isInstance(error) && error.kind === 'timeout') {
      const limit = timeoutSeconds ?? 60;
      throw new CliError(
        `timeout: ${error.message} (${plural(attempts, 'attempt')} made, each limited to ${limit} s; --timeout sets it)`,
      );
    }
    throw error;
  } finally {
    stopCounting();
  }
  const { endpoint } = resolved;
  const totals = adapter === null ? null : usageTotals(adapter.usage, () => null);
  // Each call is priced by the model it was made with: the records say at which price.
  const pricing = adapter === null ? null : callPricing(response);
  // A configuration entry that replaced a shipped price priced this call: said here, where it matters.
  const configEntry =
    pricing === null || pricing.priceSource === 'provider' ? null : configEntryName(loaded, pricing.pricedAs);
  if (configEntry !== null) loaded.replacedPrices.used(io, pricing?.pricedAs ?? null);
  if (pricing !== null && pricing.costUsd === null && response.calls.some((call) => call.usage !== null)) {
    io.stderr(
      `switchboard: warning: no price recorded for model ${safeText(JSON.stringify(model))}: the call is not costed; add [prices."${safeText(model)}"] to the config\n`,
    );
  }

  if (options.json) {
    // With --stream, the record is the last NDJSON line, after the deltas.
    const print = options.stream ? safeJsonLine : safeJson;
    io.stdout(
      print({
        rule: resolved.rule,
        provider: endpoint.provider,
        model,
        content: response.content,
        reasoning: response.reasoning,
        toolCalls: response.toolCalls,
        finishReason: response.finishReason,
        meanLogprob: response.meanLogprob,
        usage: adapter === null ? null : adapter.usage,
        tokens:
          totals === null
            ? null
            : { cacheHit: totals.cacheHit, cacheMiss: totals.cacheMiss, output: totals.output },
        costUsd: pricing?.costUsd ?? null,
        costNanoUsd: pricing?.costNanoUsd ?? null,
        pricedAs: pricing?.pricedAs ?? null,
        priceSource: pricing?.priceSource ?? null,
        providerCostUsd: pricing?.providerCostUsd ?? null,
        priceCheckedAt: pricing?.priceCheckedAt ?? null,
        calls: response.calls,
      }),
    );
    return;
  }

  const paint = colors(io.color);
  // A stream has printed its content (and reasoning) as it arrived.
  if (!options.stream) io.stdout(`${safeText(response.content ?? '')}\n`);
  if (options.showReasoning && !shownReasoning) {
    io.stdout(`${paint.dim(`reasoning: ${safeText(response.reasoning ?? '(none)')}`)}\n`);
  }
  for (const call of response.toolCalls) {
    io.stdout(`tool call: ${safeText(call.name)} ${safeText(JSON.stringify(call.arguments))}\n`);
  }
  const details = [
    `model ${safeText(model)}`,
    `provider ${endpoint.provider}`,
    `finish ${safeText(response.finishReason ?? 'n/a')}`,
  ];
  if (response.meanLogprob !== null) {
    details.push(
      `mean logprob ${response.meanLogprob.toFixed(4)} (confidence ${formatConfidence(response.meanLogprob)})`,
    );
  }
  if (totals !== null) {
    details.push(
      `tokens ${formatCount(totals.cacheHit)} cache hit / ${formatCount(totals.cacheMiss)} cache miss / ${formatCount(totals.output)} output`,
      costLine(pricing, pricingModel, model, configEntry),
    );
  } else {
    details.push('usage not recorded (scripted client)');
  }
  io.stderr(`${colors(io.errorColor ?? io.color).dim(details.join(' · '))}\n`);
}
