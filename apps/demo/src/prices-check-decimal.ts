/**
 * Exact decimal text for prices: the listing's per-token strings and our per-million
 * figures are compared as decimals, moved by their digits, never through a float.
 */

// A plain decimal, optionally with an exponent, as a listing may write it; bounded so a
// hostile value cannot ask for a string of a million zeros.
const DECIMAL = /^(\d{1,40})(?:\.(\d{1,40}))?(?:[eE]([+-]?\d{1,2}))?$/;

/**
 * `text` (a non-negative decimal: `0.00000044`, `4.4e-7`) times 10^`places`, as a normal
 * decimal string (no exponent, no leading or trailing zeros: `0.44`, `12`, `0`); null when
 * `text` is no such decimal.
 */
function shiftDecimal(text: string, places: number): string | null {
  const match = DECIMAL.exec(text);
  if (match === null) return null;
  const [, whole = '', fraction = '', exponent = '0'] = match;
  const digits = `${whole}${fraction}`;
  const point = whole.length + Number(exponent) + places;
  const padded = point <= 0 ? `${'0'.repeat(1 - point)}${digits}` : digits.padEnd(point, '0');
  const at = Math.max(point, 1);
  const integer = padded.slice(0, at).replace(/^0+(?=\d)/, '');
  const decimals = padded.slice(at).replace(/0+$/, '');
  return decimals === '' ? integer : `${integer}.${decimals}`;
}

/** A listing's per-token price as USD per million tokens, exactly: `'0.00000044'` → `'0.44'`; null when not a decimal. */
export function perMillionOf(perToken: string): string | null {
  return shiftDecimal(perToken, 6);
}

/**
 * One of our figures (a JS number read from JSON or TOML) as the decimal it was written
 * as: `String()` gives the shortest text that reads back as the number, which is the text
 * of the file for any figure written with 17 significant digits or fewer.
 */
export function decimalOfNumber(value: number): string {
  return shiftDecimal(String(value).replace('e+', 'e'), 0) ?? String(value);
}

/**
 * The number a decimal string is written as in a JSON table, when that number reads back
 * as exactly this decimal; null when no JS number holds it exactly (more digits than a
 * double keeps), so a table could not record it without rounding.
 */
export function exactNumberOf(decimal: string): number | null {
  const value = Number(decimal);
  return Number.isFinite(value) && decimalOfNumber(value) === shiftDecimal(decimal, 0) ? value : null;
}
