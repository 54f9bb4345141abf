const MIN_POLL_MS = 2;
const MAX_POLL_MS = 100;

/**
 * Attempts of this process waiting for an in-flight slot. A slot freed here wakes
 * one waiter at once; slots freed by other processes are found by polling the
 * store, with a growing, jittered interval so waiters do not stampede it.
 */
export class SlotWaiters {
  readonly #queue = new Set<() => void>();

  /** Waits until woken, a poll interval passes (at most `maxMs`), or `signal` aborts (resolves; the caller checks it). */
  wait(maxMs: number, signal: AbortSignal | undefined, round = 0): Promise<void> {
    const poll = Math.min(MAX_POLL_MS, MIN_POLL_MS * 2 ** round) * (0.5 + Math.random());
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#queue.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, Math.min(maxMs, poll));
      this.#queue.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  /** Wakes the longest-waiting attempt, if any. */
  wakeOne(): void {
    const first = this.#queue.values().next();
    if (!first.done) first.value();
  }
}
