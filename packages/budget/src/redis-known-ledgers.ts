/**
 * The ledger markers a Redis store saw, per scope key: the latest `MAX_KNOWN` scopes. A process that
 * serves many tenants, or many windows, forgets the markers of scopes it has not used for long;
 * such a scope is then asked as one never seen (its ledger found lost only when it still holds
 * figures without a marker), which bounds the memory a process keeps.
 */
export class KnownLedgers {
  static readonly MAX_KNOWN = 10_000;
  #recent = new Map<string, string>();
  #older = new Map<string, string>();

  get(key: string): string | undefined {
    return this.#recent.get(key) ?? this.#older.get(key);
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  know(key: string, marker: string): void {
    if (this.#recent.size >= KnownLedgers.MAX_KNOWN && !this.#recent.has(key)) {
      this.#older = this.#recent;
      this.#recent = new Map();
    }
    this.#recent.set(key, marker);
  }
}
