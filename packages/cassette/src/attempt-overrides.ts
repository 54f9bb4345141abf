import type { ChatTransport } from '@switchboard/adapter';

/** Whether `transport` sends each attempt with the overrides its `beforeAttempt` answered. */
export function appliesOverrides(transport: ChatTransport): boolean {
  return transport.reportsAttempts === true && transport.appliesAttemptOverrides === true;
}

export function isThenable<T>(value: unknown): value is PromiseLike<T> {
  return typeof (value as PromiseLike<T> | null)?.then === 'function';
}
