import type { SwitchboardConfig } from '@switchboard/endpoint';
import { type BookPrice, PRICE_TABLE_SOURCE, PriceBook } from '@switchboard/prices';
import { BAD_INPUT_EXIT_CODE, CliError } from '../cli-error.js';
import { renderTable } from '../format.js';
import type { Io } from '../io.js';
import { safeJson, safeText } from '../terminal-text.js';

/** Options of `switchboard prices`. */
export interface PricesCommandOptions {
  /** An ISO time with its offset; default now. */
  at?: string;
  json?: boolean;
}

// A date-time without an offset would be read in this machine's timezone: a tariff band
// then depends on where the command runs, so the offset is asked for.
const OFFSET = /(?:Z|[+-]\d{2}:?\d{2})$/i;

function timeOf(at: string | undefined): Date {
  if (at === undefined) return new Date();
  const text = at.trim();
  const time = new Date(text);
  if (Number.isNaN(time.getTime()) || (text.includes('T') && !OFFSET.test(text))) {
    throw new CliError(
      `--at: expected an ISO time with its offset, e.g. 2026-06-03T10:00:00+08:00, got ${JSON.stringify(safeText(at))}`,
      BAD_INPUT_EXIT_CODE,
    );
  }
  return time;
}

/** How a price's tariff reads in a table: `flat`, or `entry / band`. */
function bandOf(price: BookPrice): string {
  return price.tariff === null ? 'flat' : `${price.tariff.entry} / ${price.tariff.band ?? 'standard'}`;
}

/**
 * `switchboard prices [--at TIME]`: the prices in force at that time (default
 * now), USD per million tokens, with the band that applies: the shipped table
 * plus the config's `[prices."id"]` entries.
 */
export function pricesCommand(io: Io, options: PricesCommandOptions, config: SwitchboardConfig = {}): void {
  const at = timeOf(options.at);
  const book = new PriceBook().withConfig(config.prices);
  const prices = book
    .models()
    .map((model) => book.priceOf(model, { at }))
    .filter((price): price is BookPrice => price !== null);
  if (options.json) {
    io.stdout(
      safeJson({
        ...PRICE_TABLE_SOURCE,
        at: at.toISOString(),
        models: Object.fromEntries(prices.map((price) => [price.model, price.prices])),
        tariffs: Object.fromEntries(prices.map((price) => [price.model, price.tariff])),
      }),
    );
    return;
  }
  const rows = prices.map((price) => [
    safeText(price.model),
    String(price.prices.cacheHitPerM),
    String(price.prices.inputPerM),
    String(price.prices.outputPerM),
    safeText(bandOf(price)),
  ]);
  io.stdout(
    `${renderTable(['model', 'cache hit /M', 'input /M', 'output /M', 'band'], rows, { color: io.color, rightAligned: [1, 2, 3] })}\n`,
  );
  io.stdout(
    `${PRICE_TABLE_SOURCE.currency} ${PRICE_TABLE_SOURCE.unit}, in force at ${at.toISOString()}; table recorded ${PRICE_TABLE_SOURCE.recorded}\n`,
  );
}
