import { PriceBook } from '@switchboard/prices';
import type { ResolveChatEndpointOptions } from './resolve-chat-endpoint-options.js';
import type { SwitchboardConfig } from './switchboard-config.js';

/**
 * The book a resolved endpoint prices calls with: `options.priceBook` (default the
 * shipped table) plus the configuration's `[prices."model-id"]` entries, which
 * `parseConfig` has already checked.
 */
export function endpointPriceBook(config: SwitchboardConfig, options: ResolveChatEndpointOptions): PriceBook {
  const base = options.priceBook ?? new PriceBook();
  if (typeof base !== 'object' || base === null || typeof base.withConfig !== 'function') {
    throw new TypeError('priceBook: expected a PriceBook from @switchboard/prices');
  }
  return base.withConfig(config.prices);
}
