import { FetchTransport, NodeTransport } from '@switchboard/adapter';
import type { Environment } from './environment.js';

/** What a route's transport is made of. */
export interface RouteTransportInit {
  readonly apiKey: string;
  /** A normalised address (see `parseBaseUrl`). */
  readonly baseUrl: string;
  /** Where `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY` are read: the resolution's environment. */
  readonly environment: Environment;
}

/**
 * The transport of an adapter route (rules 4–6): in Node a `NodeTransport` (requests below
 * `fetch`, with `node:http`: the same bytes at a third of fetch's cost per call), its proxies
 * read from the resolution's environment; elsewhere (Bun, Deno, edge runtimes, where `fetch` is
 * the platform's own) a `FetchTransport`. A proxy variable `NodeTransport` cannot speak (a SOCKS
 * address) leaves the route on `FetchTransport`, which leaves proxies to `fetch`, as before.
 */
export function routeTransport(init: RouteTransportInit): FetchTransport | NodeTransport {
  const { apiKey, baseUrl } = init;
  if (!isNode()) return new FetchTransport({ apiKey, baseUrl });
  try {
    return new NodeTransport({ apiKey, baseUrl, env: init.environment });
  } catch (error) {
    if (!(error instanceof TypeError) || !/^HTTPS?_PROXY /.test(error.message)) throw error;
    return new FetchTransport({ apiKey, baseUrl });
  }
}

/** Node itself: not Bun or Deno, whose `node:http` is a layer over their own `fetch`. */
function isNode(): boolean {
  const versions = typeof process === 'object' ? process.versions : undefined;
  return typeof versions?.node === 'string' && versions.bun === undefined && versions.deno === undefined;
}
