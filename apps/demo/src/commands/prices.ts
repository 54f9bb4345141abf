import { PRICE_TABLE, PRICE_TABLE_SOURCE } from '@switchboard/prices';
import { renderTable } from '../format.js';
import type { Io } from '../io.js';
import { safeJson } from '../terminal-text.js';

/** `switchboard prices`: the price table, USD per million tokens. */
export function pricesCommand(io: Io, options: { json?: boolean }): void {
  if (options.json) {
    io.stdout(safeJson({ ...PRICE_TABLE_SOURCE, models: Object.fromEntries(PRICE_TABLE) }));
    return;
  }
  const rows = [...PRICE_TABLE].map(([model, prices]) => [
    model,
    String(prices.cacheHitPerM),
    String(prices.inputPerM),
    String(prices.outputPerM),
  ]);
  io.stdout(
    `${renderTable(['model', 'cache hit /M', 'input /M', 'output /M'], rows, { color: io.color, rightAligned: [1, 2, 3] })}\n`,
  );
  io.stdout(
    `${PRICE_TABLE_SOURCE.currency} ${PRICE_TABLE_SOURCE.unit}; recorded ${PRICE_TABLE_SOURCE.recorded}\n`,
  );
}
