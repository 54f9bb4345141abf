/**
 * A map of the latest keys only: at most about `2 × max` entries, in two generations of `max`; a
 * key not set for `max` newer keys is forgotten. What a process remembers per scope (a ledger
 * marker, a threshold mark) stays bounded however many scopes, windows and tenants it meets.
 */
export class RecentMap<V> {
  readonly #max: number;
  #recent = new Map<string, V>();
  #older = new Map<string, V>();

  constructor(max: number) {
    this.#max = max;
  }

  get(key: string): V | undefined {
    return this.#recent.get(key) ?? this.#older.get(key);
  }

  has(key: string): boolean {
    return this.#recent.has(key) || this.#older.has(key);
  }

  set(key: string, value: V): void {
    if (this.#recent.size >= this.#max && !this.#recent.has(key)) {
      this.#older = this.#recent;
      this.#recent = new Map();
    }
    this.#recent.set(key, value);
  }
}
