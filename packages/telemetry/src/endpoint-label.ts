import type { EndpointInfo } from './telemetry-record.js';

/**
 * The label meters, journals and reports group an endpoint's calls under:
 * `provider baseUrl` (`primary https://api.primary.example`), or `provider`
 * alone when the address is empty (the scripted client).
 */
export function endpointLabel(endpoint: EndpointInfo | null | undefined): string {
  if (endpoint === null || endpoint === undefined) return 'unknown';
  const baseUrl = withoutCredentials(endpoint.baseUrl);
  return baseUrl === '' ? endpoint.provider : `${endpoint.provider} ${baseUrl}`;
}

/** The address without a `user:password@` part, which may hold a key. */
export function withoutCredentials(baseUrl: string): string {
  if (!baseUrl.includes('@')) return baseUrl;
  try {
    const url = new URL(baseUrl);
    url.username = '';
    url.password = '';
    return url.toString().replace(/\/$/, baseUrl.endsWith('/') ? '/' : '');
  } catch {
    // Not a URL: drop everything up to the last '@' rather than risk printing a secret.
    return baseUrl.slice(baseUrl.lastIndexOf('@') + 1);
  }
}
