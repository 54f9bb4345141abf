import { BaseUrlError, parseBaseUrl } from '@switchboard/adapter';
import { primaryVersionPathReason } from './primary-base-url.js';
import { providerOf } from './provider-of.js';

/** How a base address is checked. */
export interface BaseUrlCheck {
  /** Where the address comes from, as messages name it: `models.chat_base_url`, `PRIMARY_BASE_URL`, ... */
  name: string;
  /** Whether it is the primary platform's: true, false, or undefined to tell from the address itself. */
  primary?: boolean;
}

/** A checked address: the normalised address, or why it was refused (without the leading name). */
export type BaseUrlOutcome = { readonly address: string } | { readonly reason: string };

/**
 * Checks a base address by the adapter's `parseBaseUrl` rule and, for a primary
 * address, the version-path rule — the same whichever way the address arrives.
 */
export function checkBaseUrl(value: string, check: BaseUrlCheck): BaseUrlOutcome {
  let address: string;
  try {
    address = parseBaseUrl(value, { name: check.name });
  } catch (error) {
    if (BaseUrlError.isInstance(error)) return { reason: error.reason };
    throw error;
  }
  const primary = check.primary ?? providerOf(address) === 'primary';
  const reason = primary ? primaryVersionPathReason(address) : null;
  return reason === null ? { address } : { reason };
}
