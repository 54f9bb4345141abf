import { nearestName } from '@switchboard/adapter';
import type { ResolveChatEndpointOptions } from './resolve-chat-endpoint-options.js';

/** Every option of `resolveChatEndpoint` and `explainResolution`. */
const OPTION_KEYS: readonly (keyof ResolveChatEndpointOptions)[] = [
  'override',
  'env',
  'observers',
  'allowInsecureHttp',
  'allowKeyVariable',
  'priceBook',
  'cassette',
  'onConfigWarning',
];

/**
 * Refuses an unknown option key with a TypeError naming it and the nearest known one
 * (the adapter's `nearestName`, as the configuration parser's warnings), so a typo in plain JavaScript
 * (`{ observer: [budget] }`) is not silently a budget left unattached.
 */
export function checkResolveOptions(options: object): void {
  for (const key of Object.keys(options)) {
    if ((OPTION_KEYS as readonly string[]).includes(key)) continue;
    const nearest = nearestName(key, OPTION_KEYS);
    const hint =
      nearest === null
        ? `known: ${OPTION_KEYS.map((name) => `\`${name}\``).join(', ')}`
        : `did you mean \`${nearest}\`?`;
    const shown = JSON.stringify(key.length > 64 ? `${key.slice(0, 64)}…` : key).slice(1, -1);
    throw new TypeError(`resolveChatEndpoint options: unknown option \`${shown}\`; ${hint}`);
  }
}
