import type { ProviderKind } from './provider-kind.js';

/**
 * The vendors' own domains: their default addresses (`https://api.primary.example`,
 * `https://gateway.example/api/v1`) are hosts in them.
 */
const VENDOR_DOMAINS: ReadonlyArray<readonly [Exclude<ProviderKind, 'scripted' | 'custom'>, string]> = [
  ['primary', 'primary.example'],
  ['gateway', 'gateway.example'],
];

/**
 * The provider an address belongs to (resolution rule 4), by its host: `primary` when the
 * host is the primary vendor's domain or a subdomain of it, `gateway` likewise, else `custom`.
 * A name anywhere else does not count: `https://primary.evil.example` or
 * `https://llm.example/primary` is `custom`. Case-insensitive.
 *
 * `address` is the normalised form `parseBaseUrl` returns (an absolute http(s) URL).
 */
export function providerOf(address: string): Exclude<ProviderKind, 'scripted'> {
  let host: string;
  try {
    host = new URL(address).hostname.toLowerCase().replace(/\.$/, '');
  } catch {
    return 'custom';
  }
  for (const [provider, domain] of VENDOR_DOMAINS) {
    if (host === domain || host.endsWith(`.${domain}`)) return provider;
  }
  return 'custom';
}
