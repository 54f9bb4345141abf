/**
 * A call's signal aborted (its deadline, or its caller) while its store was still answering an
 * acquisition: the call ends, and the lease, which the store may still grant, is released behind it.
 */
export class StoreWaitAborted extends Error {
  override readonly name = 'StoreWaitAborted';
  readonly signal: AbortSignal;
  readonly #answer: Promise<unknown>;

  constructor(signal: AbortSignal, answer: Promise<unknown>) {
    super('the call’s signal aborted while its budget store was answering');
    this.signal = signal;
    this.#answer = answer;
  }

  /**
   * Calls `release` once the store has answered, if it may have taken the lease (granted, or failed in a
   * way that may have run): released behind the acquisition, never racing it.
   */
  releaseWhenAnswered(release: () => unknown): void {
    this.#answer.then(
      (result) => {
        if ((result as { granted?: unknown } | null)?.granted === true) release();
      },
      (error: unknown) => {
        const flags = error as { configuration?: unknown; ranNothing?: unknown } | null;
        if (flags?.configuration !== true && flags?.ranNothing !== true) release();
      },
    );
  }
}

/**
 * The store's answer, unless the call's signal aborts first: then a {@link StoreWaitAborted}. A wait on a
 * busy store (a row lock held elsewhere) so ends at the call's deadline, whatever the store's own timeout.
 */
export function untilAborted<T>(answer: T | Promise<T>, signal: AbortSignal | undefined): T | Promise<T> {
  if (signal === undefined || typeof (answer as { then?: unknown } | null)?.then !== 'function') {
    return answer;
  }
  const asked = Promise.resolve(answer);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new StoreWaitAborted(signal, asked));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    asked.then(
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
