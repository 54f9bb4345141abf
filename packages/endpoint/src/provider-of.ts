import type { ProviderKind } from './provider-kind.js';

/**
 * The provider an address belongs to (spec "Resolution rules" 4): `primary` when it
 * contains that name (checked first, so an address naming both is `primary`),
 * `gateway` when it contains that name, else `custom`. Case-insensitive.
 */
export function providerOf(baseUrl: string): Exclude<ProviderKind, 'scripted'> {
  const address = baseUrl.toLowerCase();
  if (address.includes('primary')) return 'primary';
  if (address.includes('gateway')) return 'gateway';
  return 'custom';
}
