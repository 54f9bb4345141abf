import type { ReportAnnouncedPrice, ReportFigures } from '@switchboard/telemetry';
import { configPriceBook } from '../config-price-book.js';
import type { CliConfig } from '../load-config.js';

/** Models the report names announced changes for at most (a report lists at most 1,000 models). */
const MAX_MODELS = 1_000;

/**
 * The price changes still to come, at `at`, for the models a report's calls used, from the prices in
 * force (the shipped table and the configuration): each announced change, not those called off.
 */
export function announcedPrices(
  figures: ReportFigures,
  loaded: Pick<CliConfig, 'config' | 'file'>,
  at: Date = new Date(),
): ReportAnnouncedPrice[] {
  const book = configPriceBook(loaded);
  return Object.keys(figures.byModel)
    .slice(0, MAX_MODELS)
    .flatMap((model) =>
      book
        .announcedOf(model, { at })
        .filter((change) => !change.cancelled)
        .map((change) => ({ model, effectiveFrom: change.effectiveFrom, source: change.source })),
    );
}
