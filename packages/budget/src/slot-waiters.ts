import type { AcquireResult } from './budget-store.js';

const MIN_POLL_MS = 2;
const MAX_POLL_MS = 50;

/**
 * Attempts of this process waiting for an in-flight slot or for room held by
 * calls in flight, in one scope chain, in arrival order. Only the first in line
 * asks the store (polling, as leases ended by other processes are not announced),
 * so a process adds one poller, however many calls wait; a lease ended in this
 * process wakes the first in line at once (also one that ended while it was asking).
 */
export class SlotQueue {
  /** The first in line (asking), then those waiting their turn: each told true (its turn) or false (none: aborted or closed). */
  readonly #line: Array<(turn: boolean) => void> = [];
  #wake: (() => void) | null = null;
  /** A lease ended since the first in line last asked: its next pause returns at once. */
  #ended = false;
  /**
   * What the store last said when it refused the first in line: the refusing scope's
   * index in the chain and its spend then (spend only grows), so a newcomer that could
   * not fit even with nothing in flight is refused without waiting its turn.
   */
  lastRefusal: Extract<AcquireResult, { granted: false }> | null = null;

  /** Attempts in line (the first included): a newcomer joins them rather than asking first. */
  get waiting(): number {
    return this.#line.length;
  }

  /**
   * Resolves true when it is this attempt's turn to ask the store (then call `leave`), false when `signal`
   * aborted first or the queue was closed (then it is not in line).
   */
  async turn(signal: AbortSignal | undefined): Promise<boolean> {
    if (this.#line.length === 0) {
      this.#line.push(() => {});
      this.#ended = false;
      return true;
    }
    return new Promise<boolean>((resolve) => {
      const entry = (turn: boolean) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(turn);
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

  /**
   * The budget was closed: every attempt waiting its turn is told it has none, and the first in line's
   * pause ends now (it then sees the budget closed and leaves).
   */
  close(): void {
    for (const entry of this.#line.splice(1)) entry(false);
    if (this.#wake) this.#wake();
    else this.#ended = true;
  }

  /**
   * The first in line was not granted: waits for a lease of this process to end, a
   * poll interval (2 ms doubling to 50 ms, with jitter; at most `maxMs`), or `signal`.
   */
  pause(maxMs: number, signal: AbortSignal | undefined, round: number): Promise<void> {
    if (this.#ended) {
      this.#ended = false;
      return Promise.resolve();
    }
    const poll = Math.min(MAX_POLL_MS, MIN_POLL_MS * 2 ** round) * (0.5 + Math.random());
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#wake = null;
        this.#ended = false;
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
    if (this.#line.length === 0) this.lastRefusal = null;
    this.#ended = false;
    this.#line[0]?.(true);
  }

  /** A lease of this process ended (a slot and its reservation are back): the first in line asks again now. */
  leaseEnded(): void {
    if (this.#line.length === 0) return;
    if (this.#wake) this.#wake();
    else this.#ended = true;
  }
}
