import type { AttemptOverrides, TransportRequest } from './chat-transport.js';

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
  if (cap === undefined || !Number.isSafeInteger(cap) || cap < 1) return fields;
  const current = fields.max_tokens;
  if (typeof current === 'number' && current <= cap) return fields;
  return { ...fields, max_tokens: cap };
}

/**
 * `request` as one attempt of it is sent with `overrides` applied (its `extraBody`'s
 * `max_tokens` lowered): for a transport that sends each attempt itself and says
 * `appliesAttemptOverrides`, and for the adapter around one that does not report its
 * attempts. The same object when nothing changes; a cap is never raised.
 */
export function withRequestOverrides<T extends TransportRequest>(
  request: T,
  overrides: AttemptOverrides | undefined,
): T {
  const extraBody = withAttemptOverrides(request.extraBody, overrides);
  return extraBody === request.extraBody ? request : { ...request, extraBody };
}
