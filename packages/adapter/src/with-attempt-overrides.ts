import type { AttemptOverrides } from './chat-transport.js';

/**
 * `fields` (a request body, or a request's `extraBody`) with one attempt's overrides
 * applied: `max_tokens` lowered to `overrides.maxTokens`. The same object when there
 * is nothing to change; a cap is never raised.
 */
export function withAttemptOverrides<T extends Record<string, unknown>>(
  fields: T,
  overrides: AttemptOverrides | undefined,
): T {
  const cap = overrides?.maxTokens;
  if (cap === undefined || !Number.isInteger(cap) || cap < 1) return fields;
  const current = fields.max_tokens;
  if (typeof current === 'number' && current <= cap) return fields;
  return { ...fields, max_tokens: cap };
}
