import { timingSafeEqual } from 'node:crypto';
import { apiError } from './api-error.js';
import type { RouteResult } from './route-result.js';

/**
 * The 401 to answer unless `header` is `Bearer <key>`; null when it is. The
 * error message never repeats the key or the header.
 */
export function checkAuthorization(header: string | undefined, key: string): RouteResult | null {
  const presented = /^Bearer\s+(.+)$/i.exec(header ?? '')?.[1]?.trim() ?? '';
  const expected = Buffer.from(key, 'utf8');
  const given = Buffer.from(presented, 'utf8');
  if (given.length === expected.length && timingSafeEqual(given, expected)) return null;
  const message =
    presented === ''
      ? 'Authentication failed: no API key was given. Send the header Authorization: Bearer <key>.'
      : 'Authentication failed: the API key is invalid.';
  return apiError(401, message, { type: 'authentication_error', code: 'invalid_api_key' });
}
