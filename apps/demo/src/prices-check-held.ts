import { PRICE_TABLE, type Prices, provenanceOf } from '@switchboard/prices';
import { configPriceBook } from './config-price-book.js';
import type { CliConfig } from './load-config.js';

/** A change of price announced for a date still to come (a dated tariff). */
interface AnnouncedPrice {
  /** ISO date-time the change takes effect. */
  readonly effectiveFrom: string;
  readonly source: string | null;
  readonly prices: Prices;
}

/** One price we hold: a shipped entry, or a configuration entry (which replaces a shipped one of its id). */
export interface HeldPrice {
  readonly model: string;
  readonly origin: 'table' | 'config';
  /** The prices in force now. */
  readonly prices: Prices;
  readonly checkedAt: string | null;
  readonly source: string | null;
  readonly announced: readonly AnnouncedPrice[];
}

/**
 * Every price we hold at `at`: each shipped entry, and each configuration entry (also one
 * that replaces a shipped price: both are checked, the shipped one for the next release,
 * the configured one for the calls it prices).
 */
export function heldPrices(loaded: CliConfig, at: Date): HeldPrice[] {
  const shipped = [...PRICE_TABLE].map(([model, prices]): HeldPrice => {
    const provenance = provenanceOf(model);
    return {
      model,
      origin: 'table',
      prices,
      checkedAt: provenance?.checkedAt ?? null,
      source: provenance?.source ?? null,
      announced: [],
    };
  });
  const book = configPriceBook(loaded);
  const configured = Object.keys(loaded.config.prices ?? {})
    .map((id) => id.trim())
    .flatMap((model): HeldPrice[] => {
      const price = book.priceOf(model, { at });
      if (price === null) return [];
      const provenance = book.provenanceOf(model);
      return [
        {
          model,
          origin: 'config',
          prices: price.prices,
          checkedAt: provenance?.checkedAt ?? null,
          source: provenance?.source ?? null,
          // A cancelled change is never priced: nothing to compare.
          announced: book
            .announcedOf(model, { at })
            .flatMap(({ effectiveFrom, source, prices }) =>
              prices === null ? [] : [{ effectiveFrom, source, prices }],
            ),
        },
      ];
    });
  return [...shipped, ...configured];
}
