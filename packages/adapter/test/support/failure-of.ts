import { expect } from 'vitest';
import { ChatError } from '../../src/index.js';

/** The promise's rejection, whatever it is; fails the test when it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  const outcome = await promise.then(
    () => ({ rejected: false as const }),
    (error: unknown) => ({ rejected: true as const, error }),
  );
  if (!outcome.rejected) throw new Error('expected the call to reject, it resolved');
  return outcome.error;
}

/** The promise's rejection, expected to be a ChatError; fails the test when it resolves. */
export async function failureOf(promise: Promise<unknown>): Promise<ChatError> {
  const error = await rejectionOf(promise);
  expect(ChatError.isInstance(error)).toBe(true);
  return error as ChatError;
}
