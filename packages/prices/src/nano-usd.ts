/**
 * Money is counted in whole nano-dollars (1e-9 USD): integers add up exactly,
 * where sums of floating-point USD drift (`0.1 + 0.2`). Every price in the table
 * has at most three decimals per million tokens, so one call's cost is a whole
 * number of nano-dollars up to float noise, which {@link nanoUsdOf} rounds away.
 * Sums stay exact up to `Number.MAX_SAFE_INTEGER` nano-dollars (about 9 million USD).
 */
export const NANO_USD_PER_USD = 1_000_000_000;

/**
 * A USD amount in whole nano-dollars, rounded to the nearest (halves away from
 * zero): `nanoUsdOf(0.000047079999999999996) === 47080`.
 *
 * @throws {RangeError} for a value that is not a finite number, or whose
 *   nano-dollars would pass `Number.MAX_SAFE_INTEGER` (no longer exact).
 */
export function nanoUsdOf(usd: number): number {
  if (typeof usd !== 'number' || !Number.isFinite(usd)) {
    throw new RangeError(`usd must be a finite number, got ${String(usd)}`);
  }
  const scaled = usd * NANO_USD_PER_USD;
  const nano = Math.sign(scaled) * Math.round(Math.abs(scaled));
  if (!Number.isSafeInteger(nano)) {
    throw new RangeError(`usd ${usd} is past the exact range of nano-dollars (about 9 million USD)`);
  }
  // -0 reads as 0.
  return nano + 0;
}

/**
 * Whole nano-dollars as USD: the nearest number to the exact decimal, so
 * `String(usdOfNano(n))` prints it with at most nine decimals and no float noise
 * (for sums below about 8 million USD, where doubles still tell nano-dollars apart).
 *
 * @throws {RangeError} for a value that is not a safe integer.
 */
export function usdOfNano(nanoUsd: number): number {
  checkNano(nanoUsd);
  return nanoUsd / NANO_USD_PER_USD;
}

/** Options of {@link formatNanoUsd}. */
export interface FormatNanoUsdOptions {
  /**
   * Decimals always shown, 0 to 9, padded with zeros: 9 for a column that lines
   * up, 2 for a bill. Default 0: as many as the amount needs, at most nine.
   */
  readonly minDecimals?: number;
}

/**
 * Whole nano-dollars as an exact decimal string of USD, computed on integers
 * (never through a float): `formatNanoUsd(292016) === '0.000292016'`,
 * `formatNanoUsd(1_500_000_000, { minDecimals: 2 }) === '1.50'`. No currency
 * sign, no thousands separators; a minus sign for a negative amount. Figures
 * formatted this way add up exactly to the formatted sum of their nano-dollars.
 *
 * @throws {RangeError} for a value that is not a safe integer, or a bad `minDecimals`.
 */
export function formatNanoUsd(nanoUsd: number, options: FormatNanoUsdOptions = {}): string {
  checkNano(nanoUsd);
  const minDecimals = options.minDecimals ?? 0;
  if (!Number.isInteger(minDecimals) || minDecimals < 0 || minDecimals > 9) {
    throw new RangeError(`minDecimals must be a whole number from 0 to 9, got ${String(minDecimals)}`);
  }
  const magnitude = Math.abs(nanoUsd);
  // `%` and the division of a multiple are exact on safe integers.
  const fraction = magnitude % NANO_USD_PER_USD;
  const whole = (magnitude - fraction) / NANO_USD_PER_USD;
  let decimals = String(fraction).padStart(9, '0').replace(/0+$/, '');
  if (decimals.length < minDecimals) decimals = decimals.padEnd(minDecimals, '0');
  const sign = nanoUsd < 0 ? '-' : '';
  return decimals === '' ? `${sign}${whole}` : `${sign}${whole}.${decimals}`;
}

function checkNano(nanoUsd: unknown): void {
  if (!Number.isSafeInteger(nanoUsd)) {
    throw new RangeError(
      `nanoUsd must be a whole number of nano-dollars (a safe integer), got ${String(nanoUsd)}`,
    );
  }
}
