import type { AttemptOverrides, ChatTransport, TransportRequest } from '@switchboard/adapter';

/**
 * `request` as its attempt is sent with `overrides` applied: `max_tokens` lowered to
 * `overrides.maxTokens` (a budget fitting the call to what is left). The same object when
 * nothing changes; a cap is never raised (as the wire transports apply it).
 */
export function withAttemptCap<T extends TransportRequest>(
  request: T,
  overrides: AttemptOverrides | undefined,
): T {
  const cap = overrides?.maxTokens;
  if (cap === undefined || !Number.isSafeInteger(cap) || cap < 1) return request;
  const current = request.extraBody.max_tokens;
  if (typeof current === 'number' && current <= cap) return request;
  return { ...request, extraBody: { ...request.extraBody, max_tokens: cap } };
}

/** Whether `transport` sends each attempt with the overrides its `beforeAttempt` answered. */
export function appliesOverrides(transport: ChatTransport): boolean {
  return transport.reportsAttempts === true && transport.appliesAttemptOverrides === true;
}

export function isThenable<T>(value: unknown): value is PromiseLike<T> {
  return typeof (value as PromiseLike<T> | null)?.then === 'function';
}
