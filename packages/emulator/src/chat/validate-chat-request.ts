import type { EmulatorFlavor } from '../gateway/emulator-flavor.js';
import { ReasoningLedger, requireReasoningDetails } from '../gateway/reasoning-details.js';
import { invalidField } from '../http/api-error.js';
import type { RouteResult } from '../http/route-result.js';
import type { ChatRequest } from './chat-request.js';
import type { ModelRejectionWording } from './model-rejection.js';
import { modelRejection } from './model-rejection.js';
import { resolveModelId } from './models.js';
import { requireReasoningContent, validateMessages } from './validate-messages.js';
import { validateTools } from './validate-tools.js';

/** A validated chat request, or the 400 to answer. */
export type ChatRequestOutcome =
  | { readonly ok: true; readonly request: ChatRequest }
  | { readonly ok: false; readonly error: RouteResult };

/** The platform rules a chat request is checked against. */
export interface ChatRules {
  /** Which platform: the gateway reads `reasoning` instead of `thinking`. Default `primary`. */
  readonly flavor?: EmulatorFlavor;
  /** The wording of the 400 for an unknown model. Default `listing`. */
  readonly modelRejection?: ModelRejectionWording;
  /** The gateway's record of the `reasoning_details` it sent, to check replayed turns against. */
  readonly ledger?: ReasoningLedger;
}

/**
 * Checks a parsed `POST /chat/completions` body field by field, as the platform
 * does; an unknown model is rejected in the configured wording.
 */
export function validateChatRequest(body: unknown, rules: ChatRules = {}): ChatRequestOutcome {
  const gateway = rules.flavor === 'gateway';
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return fail(invalidField('body', 'The request body must be a JSON object'));
  }
  const record = body as Record<string, unknown>;
  if (typeof record.model !== 'string' || record.model === '') {
    return fail(invalidField('model', "Missing or invalid field 'model': expected a model id string"));
  }
  const model = resolveModelId(record.model);
  if (model === null) return fail(modelRejection(record.model, rules.modelRejection));

  // The gateway ignores `thinking`: it reasons unless `reasoning` turns it off.
  const thinking = gateway ? readReasoning(record.reasoning) : readThinking(record.thinking);
  if (thinking === null) {
    return fail(
      gateway
        ? invalidField(
            'reasoning',
            "Field 'reasoning' must be an object, e.g. {enabled: false} or {effort: 'high'}",
          )
        : invalidField('thinking', "Field 'thinking' must be {type: 'enabled'} or {type: 'disabled'}"),
    );
  }
  const replayCheck = !thinking
    ? null
    : gateway
      ? requireReasoningDetails(rules.ledger ?? new ReasoningLedger())
      : requireReasoningContent;
  const messagesError = validateMessages(record.messages, replayCheck);
  if (messagesError !== null) return fail(messagesError);
  const tools = validateTools(record.tools, record.tool_choice);
  if (!tools.ok) return fail(tools.error);

  const stream = record.stream ?? false;
  if (typeof stream !== 'boolean') return fail(invalidField('stream', "Field 'stream' must be a boolean"));
  const streamOptions = record.stream_options ?? null;
  if (streamOptions !== null && !stream) {
    return fail(
      invalidField('stream_options', "Field 'stream_options' is only allowed when 'stream' is true"),
    );
  }
  const includeUsage = (streamOptions as { include_usage?: unknown } | null)?.include_usage ?? false;
  if (
    (streamOptions !== null && (typeof streamOptions !== 'object' || Array.isArray(streamOptions))) ||
    typeof includeUsage !== 'boolean'
  ) {
    return fail(
      invalidField('stream_options', "Field 'stream_options' must be an object like {include_usage: true}"),
    );
  }
  const temperature = record.temperature ?? 1;
  if (
    typeof temperature !== 'number' ||
    !Number.isFinite(temperature) ||
    temperature < 0 ||
    temperature > 2
  ) {
    return fail(invalidField('temperature', "Field 'temperature' must be a number from 0 to 2"));
  }
  const format = (record.response_format as { type?: unknown } | undefined | null)?.type ?? 'text';
  if (format !== 'text' && format !== 'json_object') {
    return fail(
      invalidField(
        'response_format',
        "Field 'response_format' must be {type: 'text'} or {type: 'json_object'}",
      ),
    );
  }
  const logprobs = record.logprobs ?? false;
  if (typeof logprobs !== 'boolean') {
    return fail(invalidField('logprobs', "Field 'logprobs' must be a boolean"));
  }
  const topLogprobs = record.top_logprobs ?? 0;
  if (!Number.isInteger(topLogprobs) || (topLogprobs as number) < 0 || (topLogprobs as number) > 20) {
    return fail(invalidField('top_logprobs', "Field 'top_logprobs' must be an integer from 0 to 20"));
  }
  if (record.top_logprobs != null && !logprobs) {
    return fail(invalidField('top_logprobs', "Field 'top_logprobs' needs 'logprobs' to be true"));
  }
  const maxTokens = record.max_tokens ?? record.max_completion_tokens ?? null;
  if (maxTokens !== null && (!Number.isInteger(maxTokens) || (maxTokens as number) < 1)) {
    return fail(invalidField('max_tokens', "Field 'max_tokens' must be a positive integer"));
  }
  return {
    ok: true,
    request: {
      model,
      messages: record.messages as Record<string, unknown>[],
      rawTools: Array.isArray(record.tools) ? record.tools : undefined,
      tools: tools.tools,
      toolChoice: tools.toolChoice,
      thinking,
      temperature,
      jsonMode: format === 'json_object',
      logprobs,
      topLogprobs: topLogprobs as number,
      maxTokens: maxTokens as number | null,
      stream,
      includeUsage,
    },
  };
}

function readThinking(thinking: unknown): boolean | null {
  if (thinking === undefined || thinking === null) return true;
  const type = (thinking as { type?: unknown }).type;
  if (type === 'enabled') return true;
  if (type === 'disabled') return false;
  return null;
}

function readReasoning(reasoning: unknown): boolean | null {
  if (reasoning === undefined || reasoning === null) return true;
  if (typeof reasoning !== 'object' || Array.isArray(reasoning)) return null;
  const record = reasoning as { enabled?: unknown; effort?: unknown };
  return record.enabled !== false && record.effort !== 'none';
}

function fail(error: RouteResult): ChatRequestOutcome {
  return { ok: false, error };
}
