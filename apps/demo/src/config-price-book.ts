import { PriceBook } from '@switchboard/prices';
import type { CliConfig } from './load-config.js';

/**
 * The prices a command costs with: the installed table plus the configuration's
 * `[prices."id"]` entries, stale after `[pricing] stale_after_days` when it is set (as
 * `resolveChatEndpoint` prices calls), so every command that prices a call warns, or
 * keeps quiet, about an old price the same way; a warning about an old configuration
 * price names the entry in its file.
 */
export function configPriceBook({ config, file }: Pick<CliConfig, 'config' | 'file'>): PriceBook {
  const book = new PriceBook().withConfig(config.prices, file === null ? {} : { file });
  const staleAfterDays = config.pricing?.stale_after_days;
  return staleAfterDays === undefined ? book : book.withOptions({ staleAfterDays });
}

/**
 * The configuration's entry that prices calls on `pricedAs` (a price book's id), as messages
 * name it: `[prices."primary-flash"] of switchboard.toml`; null when the configuration has
 * none, so the shipped table priced it.
 */
export function configEntryName(
  { config, file }: Pick<CliConfig, 'config' | 'file'>,
  pricedAs: string | null,
): string | null {
  if (pricedAs === null || file === null) return null;
  const has = Object.keys(config.prices ?? {}).some((id) => id.trim() === pricedAs);
  return has ? `[prices.${JSON.stringify(pricedAs)}] of ${file}` : null;
}
