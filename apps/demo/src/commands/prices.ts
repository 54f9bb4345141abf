import {
  type BookPrice,
  PRICE_TABLE_SOURCE,
  type PriceBook,
  type PriceTier,
  priceAgeDays,
  type TariffRef,
} from '@switchboard/prices';
import { BAD_INPUT_EXIT_CODE, CliError } from '../cli-error.js';
import { configEntryName, configPriceBook } from '../config-price-book.js';
import { renderTable } from '../format.js';
import type { Io } from '../io.js';
import type { CliConfig } from '../load-config.js';
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

/** One row of `switchboard prices --json`: a model's prices in force, where they were read and how old they are. */
interface PriceRow {
  readonly model: string;
  readonly cacheHitPerM: number;
  readonly inputPerM: number;
  readonly outputPerM: number;
  /** Prompt-size tiers, when the price has any. */
  readonly tiers?: readonly PriceTier[];
  readonly tariff: TariffRef | null;
  /** Where the price was read, or null when its entry says nothing (an entry without checked_at). */
  readonly source: string | null;
  /** `table` (the shipped price table) or `config` (the configuration's `[prices."id"]`, replacing the table's). */
  readonly origin: 'table' | 'config';
  /** When it was last checked (an ISO date), or null. */
  readonly checkedAt: string | null;
  /** Whole days from checkedAt to the time shown, or null. */
  readonly ageDays: number | null;
  /** Whether ageDays is past staleAfterDays: calls priced from it warn. */
  readonly stale: boolean;
  /** The next change of this price still to come (a dated tariff), with where it was announced; null when none. */
  readonly announced: { readonly effectiveFrom: string; readonly source: string | null } | null;
}

function rowOf(book: PriceBook, price: BookPrice, at: Date, loaded: CliConfig): PriceRow {
  const provenance = book.provenanceOf(price.model);
  const ageDays = provenance === null ? null : priceAgeDays(provenance.checkedAt, at);
  return {
    model: price.model,
    cacheHitPerM: price.prices.cacheHitPerM,
    inputPerM: price.prices.inputPerM,
    outputPerM: price.prices.outputPerM,
    ...(price.prices.tiers === undefined ? {} : { tiers: price.prices.tiers }),
    tariff: price.tariff,
    source: provenance?.source ?? null,
    origin: configEntryName(loaded, price.model) === null ? 'table' : 'config',
    checkedAt: provenance?.checkedAt ?? null,
    ageDays,
    stale: ageDays !== null && ageDays > book.staleAfterDays,
    announced: nextChange(book, price.model, at),
  };
}

/** The next dated change of a model's price after `at` that is not called off. */
function nextChange(book: PriceBook, model: string, at: Date): PriceRow['announced'] {
  const next = book.announcedOf(model, { at }).find((change) => !change.cancelled);
  return next === undefined ? null : { effectiveFrom: next.effectiveFrom, source: next.source };
}

/** Rows under a model for its changes still to come: announced ones with their prices, cancelled ones said so. */
function announcedLines(book: PriceBook, model: string, at: Date): string[][] {
  return book
    .announcedOf(model, { at })
    .map((change) => [
      safeText(
        `  > from ${change.effectiveFrom}${change.cancelled ? ', cancelled' : ', announced'}${change.source ? `: ${change.source}` : ''}`,
      ),
      change.prices === null ? '-' : String(change.prices.cacheHitPerM),
      change.prices === null ? '-' : String(change.prices.inputPerM),
      change.prices === null ? '-' : String(change.prices.outputPerM),
      '',
      change.checkedAt ?? '',
      '',
    ]);
}

/** How old a price is, in a table: `4 d`, `120 d, stale`, `unknown`. */
function ageText(row: PriceRow): string {
  if (row.ageDays === null) return 'unknown';
  return `${row.ageDays} d${row.stale ? ', stale' : ''}`;
}

/**
 * `switchboard prices [--at TIME]`: the prices in force at that time (default
 * now), USD per million tokens, with the band that applies, the date each was
 * last checked and its age then: the shipped table plus the config's
 * `[prices."id"]` entries, named under the table. Prompt-size tiers show as rows under their model.
 */
export function pricesCommand(io: Io, options: PricesCommandOptions, loaded: CliConfig): void {
  const at = timeOf(options.at);
  const book = configPriceBook(loaded);
  // The listing shows the configuration's price where it replaces a shipped one: that is where it matters.
  loaded.replacedPrices.all(io);
  const prices = book
    .models()
    .map((model) => book.priceOf(model, { at }))
    .filter((price): price is BookPrice => price !== null);
  const rows = prices.map((price) => rowOf(book, price, at, loaded));
  if (options.json) {
    io.stdout(
      safeJson({
        ...PRICE_TABLE_SOURCE,
        at: at.toISOString(),
        staleAfterDays: book.staleAfterDays,
        models: Object.fromEntries(prices.map((price) => [price.model, price.prices])),
        tariffs: Object.fromEntries(prices.map((price) => [price.model, price.tariff])),
        rows,
      }),
    );
    return;
  }
  const lines = rows.flatMap((row, index) => {
    const price = prices[index] as BookPrice;
    const main = [
      safeText(row.model),
      String(row.cacheHitPerM),
      String(row.inputPerM),
      String(row.outputPerM),
      safeText(bandOf(price)),
      row.checkedAt ?? '-',
      ageText(row),
    ];
    const tiers = (row.tiers ?? []).map((tier) => [
      `  > ${tier.aboveInputTokens.toLocaleString('en-US')} input tokens`,
      String(tier.cacheHitPerM),
      String(tier.inputPerM),
      String(tier.outputPerM),
      '',
      '',
      '',
    ]);
    return [main, ...tiers, ...announcedLines(book, row.model, at)];
  });
  io.stdout(
    `${renderTable(['model', 'cache hit /M', 'input /M', 'output /M', 'band', 'checked', 'age'], lines, { color: io.color, rightAligned: [1, 2, 3, 6] })}\n`,
  );
  const stale = rows.filter((row) => row.stale).length;
  io.stdout(
    `${PRICE_TABLE_SOURCE.currency} ${PRICE_TABLE_SOURCE.unit}, in force at ${at.toISOString()}; table recorded ${PRICE_TABLE_SOURCE.recorded}\n` +
      `age: days from the date each price was last checked to that time; stale past ${book.staleAfterDays} days ([pricing] stale_after_days)` +
      `${stale > 0 ? `: ${stale} stale, calls priced from them warn` : ''}\n`,
  );
  const configured = rows.filter((row) => row.origin === 'config').map((row) => safeText(row.model));
  if (configured.length > 0)
    io.stdout(`from the configuration (${safeText(loaded.file ?? '')} [prices]): ${configured.join(', ')}\n`);
}
