/**
 * At most `size` holders at once; the others wait their turn, in order, with no time limit of
 * their own. In front of a pg pool of the same size it keeps callers out of the pool's own queue,
 * where `connectionTimeoutMillis` would turn a busy (healthy) server into a connection timeout:
 * the pool's timeout then bounds only making a connection, and a slow answer makes calls wait.
 */
export class ConnectionGate {
  #free: number;
  #waiting: (() => void)[] = [];
  #head = 0;

  constructor(size: number) {
    this.#free = size;
  }

  /** Resolves once a place is free; call `leave()` exactly once after. */
  enter(): Promise<void> | void {
    if (this.#free > 0) {
      this.#free -= 1;
      return;
    }
    return new Promise<void>((resolve) => {
      this.#waiting.push(resolve);
    });
  }

  /** Frees the place, to the longest waiter first. */
  leave(): void {
    if (this.#head < this.#waiting.length) {
      const next = this.#waiting[this.#head] as () => void;
      this.#head += 1;
      if (this.#head > 1024 && this.#head * 2 > this.#waiting.length) {
        this.#waiting = this.#waiting.slice(this.#head);
        this.#head = 0;
      }
      next();
      return;
    }
    this.#free += 1;
  }
}
