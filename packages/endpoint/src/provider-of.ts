import type { ProviderKind } from './provider-kind.js';

/**
 * The provider an address belongs to (resolution rule 4): `primary` when it
 * contains that name (checked first, so an address naming both is `primary`),
 * `gateway` when it contains that name, else `custom`. Case-insensitive.
 *
 * `address` is the normalised form `parseBaseUrl` returns: no credentials, query or
 * fragment, so only the host and path can name a provider.
 */
export function providerOf(address: string): Exclude<ProviderKind, 'scripted'> {
  const lowered = address.toLowerCase();
  if (lowered.includes('primary')) return 'primary';
  if (lowered.includes('gateway')) return 'gateway';
  return 'custom';
}
