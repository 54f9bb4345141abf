import { deadlinePassed } from './call-deadline.js';
import { ChatError } from './chat-error.js';

/** How long a transport may take to end its attempt itself once a call's deadline passed. */
const DEADLINE_GRACE_MS = 20;

/**
 * The `ChatError` of kind `aborted` for a caller's cancelled signal (its reason as
 * `cause`), or the `timeout` error of a call's total deadline that passed.
 */
export function abortedError(signal: AbortSignal): ChatError {
  const deadline = deadlinePassed(signal.reason);
  if (deadline !== undefined) return deadline;
  return new ChatError({
    kind: 'aborted',
    message: 'the call was aborted by its signal',
    cause: signal.reason,
  });
}

/**
 * The promise, or a rejection with kind `aborted` as soon as `signal` fires, so
 * a transport that ignores the signal (a stub) still cannot hold the caller.
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) {
    // The transport's own outcome no longer matters; keep its rejection handled.
    promise.catch(() => {});
    return Promise.reject(abortedError(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      const error = abortedError(signal);
      // At a deadline, a transport that honours the signal ends the attempt itself, with an error
      // naming the request: let it come first; one that ignores the signal is cut a moment later.
      if (deadlinePassed(signal.reason) === undefined) reject(error);
      else setTimeout(() => reject(error), DEADLINE_GRACE_MS);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
