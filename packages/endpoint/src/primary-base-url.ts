/** The primary platform's address. It carries no version suffix: the platform rejects a `/v1` path. */
export const PRIMARY_DEFAULT_BASE_URL = 'https://api.primary.example';

/**
 * Why a primary address is refused, or null when it is fine: the primary platform
 * uses unversioned addresses and rejects a version path such as `/v1`.
 * `address` is normalised (see `parseBaseUrl`), so a trailing `/` is already gone.
 */
export function primaryVersionPathReason(address: string): string | null {
  if (!/\/v\d+$/i.test(new URL(address).pathname)) return null;
  return `expected an address without a version path (the primary platform rejects one, e.g. ${PRIMARY_DEFAULT_BASE_URL}), got ${JSON.stringify(address)}`;
}
