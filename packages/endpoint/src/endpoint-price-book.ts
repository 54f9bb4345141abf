import { PriceBook } from '@switchboard/prices';
import type { ResolveChatEndpointOptions } from './resolve-chat-endpoint-options.js';
import type { SwitchboardConfig } from './switchboard-config.js';

/**
 * The book a resolved endpoint prices calls with: `options.priceBook` (default the
 * shipped table) plus the configuration's `[prices."model-id"]` entries, which
 * `parseConfig` has already checked, with `[pricing] stale_after_days` when it is set.
 */
export function endpointPriceBook(config: SwitchboardConfig, options: ResolveChatEndpointOptions): PriceBook {
  const base = options.priceBook ?? new PriceBook();
  if (typeof base !== 'object' || base === null || typeof base.withConfig !== 'function') {
    throw new TypeError('priceBook: expected a PriceBook from @switchboard/prices');
  }
  const book = base.withConfig(config.prices);
  const staleAfterDays = config.pricing?.stale_after_days;
  return staleAfterDays === undefined ? book : book.withOptions({ staleAfterDays });
}
