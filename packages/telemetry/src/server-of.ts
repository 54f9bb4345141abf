/** `server.address` and `server.port` of an endpoint. */
export interface ServerFacts {
  readonly address: string;
  readonly port: number;
}

const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'https:': 443, 'http:': 80 };

/**
 * The host and port calls to `baseUrl` go to (the scheme's default port when the
 * address names none), or null for an empty or unreadable address (the scripted client).
 */
export function serverOf(baseUrl: string | undefined): ServerFacts | null {
  if (baseUrl === undefined || baseUrl === '') return null;
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return null;
  }
  const port = url.port === '' ? DEFAULT_PORTS[url.protocol] : Number(url.port);
  if (url.hostname === '' || port === undefined) return null;
  // An IPv6 host keeps no brackets in server.address.
  return { address: url.hostname.replace(/^\[(.*)\]$/, '$1'), port };
}
