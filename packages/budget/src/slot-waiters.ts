const MIN_POLL_MS = 2;
const MAX_POLL_MS = 50;

/**
 * Attempts of this process waiting for an in-flight slot of one scope chain, in
 * arrival order. Only the first in line asks the store (polling, as slots freed
 * by other processes are not announced), so a process adds one poller, however
 * many calls wait; a slot freed in this process wakes the first in line at once.
 */
export class SlotQueue {
  readonly #line: Array<() => void> = [];
  #wake: (() => void) | null = null;

  /** Resolves true when it is this attempt's turn to ask the store (then call `leave`), false when `signal` aborted first. */
  async turn(signal: AbortSignal | undefined): Promise<boolean> {
    if (this.#line.length === 0) {
      this.#line.push(() => {});
      return true;
    }
    return new Promise<boolean>((resolve) => {
      const entry = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve(true);
      };
      const onAbort = () => {
        const index = this.#line.indexOf(entry);
        if (index >= 0) this.#line.splice(index, 1);
        resolve(false);
      };
      this.#line.push(entry);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** The first in line found no slot: waits for a local slot to free, a poll interval (at most `maxMs`), or `signal`. */
  pause(maxMs: number, signal: AbortSignal | undefined, round: number): Promise<void> {
    const poll = Math.min(MAX_POLL_MS, MIN_POLL_MS * 2 ** round) * (0.5 + Math.random());
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#wake = null;
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, Math.min(maxMs, poll));
      this.#wake = done;
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  /** The first in line is done asking (granted, refused or aborted): the next one's turn. */
  leave(): void {
    this.#line.shift();
    this.#line[0]?.();
  }

  /** A slot freed in this process: the first in line asks again now. */
  slotFreed(): void {
    this.#wake?.();
  }
}
