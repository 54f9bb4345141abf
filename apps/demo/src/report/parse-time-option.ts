import { BAD_INPUT_EXIT_CODE, CliError } from '../cli-error.js';
import { safeText } from '../terminal-text.js';

// A date, optionally with a time and a zone: what `--since`/`--until` take (2026-11-23, 2026-11-23T09:00Z).
const ISO_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * The epoch milliseconds of an ISO date or time given to `option` (e.g.
 * `--since`), or undefined when the option was not given. A date or a time
 * without a zone is UTC. An impossible date or time (2026-02-30, 25:00) exits 2
 * naming the option, as does anything else that is not such a time.
 */
export function parseTimeOption(value: string | undefined, option: string): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  const match = ISO_TIME.exec(text);
  const time = match === null ? Number.NaN : timeOf(match);
  if (!Number.isFinite(time)) {
    throw new CliError(
      `${option}: expected an ISO time such as 2026-11-23T09:00:00Z (or a date, 2026-11-23; UTC unless a zone is given), got ${JSON.stringify(safeText(value))}${match === null ? '' : ': no such date or time'}`,
      BAD_INPUT_EXIT_CODE,
    );
  }
  return time;
}

function timeOf(match: RegExpExecArray): number {
  const [, year, month, day, hour = '0', minute = '0', second = '0', fraction = '', zone = 'Z'] = match;
  const fields = [year, month, day, hour, minute, second].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const [y, mo, d, h, mi, s] = fields;
  const date = new Date(Date.UTC(y, mo - 1, d));
  // Date.UTC rolls 2026-02-30 over to March 2: a date it moved did not exist.
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d)
    return Number.NaN;
  if (h > 23 || mi > 59 || s > 59) return Number.NaN;
  const offset = zoneOffsetMinutes(zone);
  if (offset === null) return Number.NaN;
  const milliseconds = fraction === '' ? 0 : Math.floor(Number(`0${fraction}`) * 1000);
  return Date.UTC(y, mo - 1, d, h, mi, s, milliseconds) - offset * 60_000;
}

function zoneOffsetMinutes(zone: string): number | null {
  if (zone.toUpperCase() === 'Z') return 0;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2));
  if (hours > 23 || minutes > 59) return null;
  return (zone.startsWith('-') ? -1 : 1) * (hours * 60 + minutes);
}
