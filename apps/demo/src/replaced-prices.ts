import type { Io } from './io.js';

/**
 * The notices that configuration entries replace shipped prices (`switchboard.toml:
 * prices."primary-flash": replaces the shipped price of …`), held back when the
 * configuration is read and said where such a price is used: by a command that prices with
 * it, once per entry. A command that prices nothing (`resolve`, `models`, `report`) never
 * says them.
 */
export class ReplacedPrices {
  readonly #notices = new Map<string, string>();
  readonly #said = new Set<string>();

  /** Holds the notice of the entry `id` (trimmed, as the price book keys it). */
  hold(id: string, text: string): void {
    this.#notices.set(id, text);
  }

  /** Whether the configuration entry `id` replaces a shipped price. */
  has(id: string | null): boolean {
    return id !== null && this.#notices.has(id);
  }

  /** Says the notice of the entry that priced a call as `pricedAs` (the book's id), once; nothing for other ids. */
  used(io: Io, pricedAs: string | null): void {
    if (pricedAs === null || this.#said.has(pricedAs)) return;
    const text = this.#notices.get(pricedAs);
    if (text === undefined) return;
    this.#said.add(pricedAs);
    io.stderr(`switchboard: ${text}\n`);
  }

  /** Says every notice not said yet: for a command that shows or uses all the entries. */
  all(io: Io): void {
    for (const id of this.#notices.keys()) this.used(io, id);
  }
}
