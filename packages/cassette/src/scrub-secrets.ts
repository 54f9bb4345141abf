import { scrubJson } from './json-secrets.js';
import { SECRET_MARKER, secretRules } from './secret-scan.js';

export { SECRET_MARKER };

/**
 * A deep copy of a JSON value with `key` (when at least 8 characters: a shorter
 * value cannot be told from text) and every credential-shaped run (bearer
 * tokens, `sk-`-style keys, URL userinfo, key-like query parameters and
 * headers...) replaced by {@link SECRET_MARKER}: in every string and object
 * key, as is or in any form a reader could decode (JSON escapes,
 * percent-encoding, HTML entities, base64 at any offset, hex), and in the text
 * the strings of one field make together across an array (a stream's deltas).
 * Plain JSON in, plain JSON out.
 */
export function scrubSecrets<T>(value: T, key: string): T {
  return scrubJson(value, secretRules([key]));
}
