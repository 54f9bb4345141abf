import type { ProviderKind } from './provider-kind.js';

/**
 * The provider an address belongs to (resolution rule 4, as the seed writes it): `primary`
 * when the address contains the primary vendor's name anywhere (host or path; checked first,
 * so an address naming both is `primary`), `gateway` when it contains the gateway vendor's
 * name, else `custom`. Case-insensitive: `https://my-GATEWAY.internal/Primary` is `primary`,
 * `https://my-gateway.internal/api/v1` is `gateway`.
 *
 * `address` is the normalised form `parseBaseUrl` returns: no credentials, query or
 * fragment, so only the host, port and path can name a provider.
 */
export function providerOf(address: string): Exclude<ProviderKind, 'scripted'> {
  const lowered = address.toLowerCase();
  if (lowered.includes('primary')) return 'primary';
  if (lowered.includes('gateway')) return 'gateway';
  return 'custom';
}
