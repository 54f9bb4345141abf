import type { SwitchboardConfig } from '@switchboard/endpoint';
import { PriceBook } from '@switchboard/prices';

/**
 * The prices a command costs with: the installed table plus the configuration's
 * `[prices."id"]` entries, stale after `[pricing] stale_after_days` when it is set (as
 * `resolveChatEndpoint` prices calls), so every command that prices a call warns, or
 * keeps quiet, about an old price the same way.
 */
export function configPriceBook(config: SwitchboardConfig): PriceBook {
  const book = new PriceBook().withConfig(config.prices);
  const staleAfterDays = config.pricing?.stale_after_days;
  return staleAfterDays === undefined ? book : book.withOptions({ staleAfterDays });
}
