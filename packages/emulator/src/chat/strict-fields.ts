import { apiError } from '../http/api-error.js';
import type { RouteResult } from '../http/route-result.js';

/** The body fields of OpenAI's chat completions API: all a strict compatible server accepts. */
const OPENAI_CHAT_FIELDS: ReadonlySet<string> = new Set([
  'model',
  'messages',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'functions',
  'function_call',
  'temperature',
  'top_p',
  'n',
  'stream',
  'stream_options',
  'stop',
  'max_tokens',
  'max_completion_tokens',
  'presence_penalty',
  'frequency_penalty',
  'logit_bias',
  'logprobs',
  'top_logprobs',
  'response_format',
  'seed',
  'user',
  'store',
  'metadata',
  'reasoning_effort',
  'service_tier',
  'modalities',
  'audio',
  'prediction',
  'web_search_options',
  'verbosity',
  'prompt_cache_key',
  'safety_identifier',
]);

/**
 * The 400 a strict OpenAI-compatible server answers for the first body field
 * OpenAI's chat API does not have (the primary's `thinking`, say), in its words:
 * `Unrecognized request argument supplied: thinking`; null when every field is known.
 */
export function unknownFieldError(body: Record<string, unknown>): RouteResult | null {
  for (const field of Object.keys(body)) {
    if (!OPENAI_CHAT_FIELDS.has(field)) {
      return apiError(400, `Unrecognized request argument supplied: ${field}`, { param: field });
    }
  }
  return null;
}
