/**
 * A price in USD per million tokens as the gateway's listing writes it: USD per token, an exact
 * decimal string (`0.44` → `'0.00000044'`, `0.014` → `'0.000000014'`), moved six places by its
 * digits, never divided as a float (`0.44 / 1e6` prints `4.4e-7`).
 */
export function perTokenText(perMillion: number): string {
  if (!Number.isFinite(perMillion) || perMillion < 0) {
    throw new RangeError(`a price must be a finite number >= 0, got ${perMillion}`);
  }
  // String() gives the shortest decimal that reads back as the number, maybe with an exponent.
  const [mantissa = '0', exponent = '0'] = String(perMillion).split('e');
  const [whole = '0', fraction = ''] = mantissa.split('.');
  const digits = `${whole}${fraction}`;
  // The position of the decimal point in `digits`, after dividing by 1e6.
  const point = whole.length + Number(exponent) - 6;
  const padded = point <= 0 ? `${'0'.repeat(1 - point)}${digits}` : digits.padEnd(point, '0');
  const at = Math.max(point, 1);
  const integer = padded.slice(0, at).replace(/^0+(?=\d)/, '');
  const decimals = padded.slice(at).replace(/0+$/, '');
  return decimals === '' ? integer : `${integer}.${decimals}`;
}
