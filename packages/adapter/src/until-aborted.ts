import { deadlinePassed } from './call-deadline.js';
import { ChatError } from './chat-error.js';

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
    const onAbort = (): void => reject(abortedError(signal));
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
