import { expect } from 'vitest';

/** The promise's rejection, whatever it is; fails the test when it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  const outcome = await promise.then(
    () => ({ rejected: false as const }),
    (error: unknown) => ({ rejected: true as const, error }),
  );
  if (!outcome.rejected) throw new Error('expected the call to reject, it resolved');
  return outcome.error;
}

/**
 * Makes a `failureOf(promise)` that returns the promise's rejection, expected
 * to pass `isInstance` (e.g. `ChatError.isInstance`); it fails the test when
 * the promise resolves or rejects with anything else.
 */
export function failureOfKind<E>(
  isInstance: (error: unknown) => error is E,
): (promise: Promise<unknown>) => Promise<E> {
  return async (promise) => {
    const error = await rejectionOf(promise);
    expect(isInstance(error)).toBe(true);
    return error as E;
  };
}
