import type { ConfigTariff } from './config-tariffs.js';
import { emitProcessWarning } from './price-age.js';

/** The code of the process warning a call priced at an announced change nobody confirmed since it took effect gets. */
export const PRICE_DRIFT_WARNING = 'SWITCHBOARD_PRICE_DRIFT';

const warned = new Set<string>();

/**
 * Whether a dated change is still only an announcement: never checked, or last checked
 * before it took effect, so no check since says the provider really bills it.
 */
export function unconfirmed(change: ConfigTariff): boolean {
  return change.checkedAt === null || Date.parse(`${change.checkedAt}T00:00:00Z`) < change.from;
}

/**
 * Warns (`SWITCHBOARD_PRICE_DRIFT`) that a call on `model` was priced at an announced
 * change that no check has confirmed since it took effect: a change called off after it
 * was recorded would misprice every call from then on. Once per model and change per
 * process; nothing where there is no `process.emitWarning`.
 */
export function warnPriceDrift(model: string, change: ConfigTariff, file: string | null): void {
  const key = `${model}\n${change.effectiveFrom}`;
  if (warned.has(key)) return;
  warned.add(key);
  const quoted = JSON.stringify(model);
  const checked = change.checkedAt === null ? 'never checked' : `last checked ${change.checkedAt}`;
  emitProcessWarning(
    `the price of ${quoted} from ${change.effectiveFrom} was announced (${checked}, before it took effect) and no check since confirms it: this call is priced at it, which may not be what the provider bills if the change was called off. Run switchboard prices check, then set that tariff's checked_at, or mark it cancelled = true, in [prices.${quoted}] of ${file ?? 'the configuration'}`,
    PRICE_DRIFT_WARNING,
  );
}
