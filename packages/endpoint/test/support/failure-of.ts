import { ChatError } from '@switchboard/adapter';
import { expect } from 'vitest';

/** The promise's rejection, which must be a ChatError; fails the test when it resolves. */
export async function failureOf(promise: Promise<unknown>): Promise<ChatError> {
  const outcome = await promise.then(
    () => ({ rejected: false as const }),
    (error: unknown) => ({ rejected: true as const, error }),
  );
  if (!outcome.rejected) throw new Error('expected the call to reject, it resolved');
  expect(ChatError.isInstance(outcome.error)).toBe(true);
  return outcome.error as ChatError;
}
