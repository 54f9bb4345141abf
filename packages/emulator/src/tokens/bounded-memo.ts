/**
 * Remembers the last `capacity` results of a pure function of a string: a long
 * answer is built and counted once, then read back while the same request
 * repeats (the deterministic replies: thinking off, temperature 0). The oldest
 * entry goes first.
 */
export class BoundedMemo<V> {
  readonly #entries = new Map<string, V>();

  constructor(readonly capacity: number) {}

  /** The value remembered for `key`, or made by `make` (and remembered). */
  get(key: string, make: () => V): V {
    const known = this.#entries.get(key);
    if (known !== undefined) return known;
    const value = make();
    if (this.#entries.size >= this.capacity) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, value);
    return value;
  }
}
