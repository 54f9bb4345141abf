import { type Agent, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { asAgent, PooledAgent, type TrustedCertificates } from './pooled-agent.js';
import { bare, type ProxyEnv, type ProxySetting, proxyFromEnv } from './proxy-from-env.js';
import { tunnelAgent } from './tunnel-agent.js';

export type { TrustedCertificates } from './pooled-agent.js';

/** Where a Node transport sends its requests, fixed for its base address. */
export interface NodeTarget {
  readonly request: typeof httpRequest;
  readonly agent: Agent;
  /** The host as sockets take it (an IPv6 address without brackets). */
  readonly hostname: string;
  readonly port: number;
  /** The `host` header: the host (an IPv6 address in brackets) and the port unless the scheme's own. */
  readonly host: string;
  /** The name TLS asks for (SNI), as Node works it out: the host name; undefined for an address. */
  readonly servername: string | undefined;
  /** The base address's path, without a trailing `/` (`''` or `/api/v1`). */
  readonly basePath: string;
  /** What the request accepts as `accept-encoding`: as fetch asks (brotli over https only). */
  readonly acceptEncoding: string;
  /** The proxy requests are tunnelled through, or null. */
  readonly proxy: ProxySetting | null;
}

// A tunnel's pooled connections idle this long are closed (or sooner, as a server's `keep-alive:
// timeout=N` asks, less a second): fetch's own default, so a server's idle timeout rarely races a reuse.
const AGENT_OPTIONS = { keepAlive: true, timeout: 4_000, scheduling: 'lifo' } as const;

// The agents of origins reached directly with Node's roots, shared by every transport to them.
const shared = new Map<string, PooledAgent>();

/**
 * The target of a base address: a keep-alive agent of its origin (a `PooledAgent`), shared
 * by every transport without a proxy or certificates of its own (so they share
 * connections), else one of its own; the proxy from `env` (see `proxyFromEnv`), tunnelled
 * with `CONNECT` by Node's agent.
 */
export function nodeTarget(baseUrl: string, env: ProxyEnv, ca: TrustedCertificates | undefined): NodeTarget {
  const url = new URL(baseUrl);
  const secure = url.protocol === 'https:';
  const proxy = proxyFromEnv(url, env);
  const hostname = bare(url.hostname);
  const port = Number(url.port) || (secure ? 443 : 80);
  const servername = isIP(hostname) === 0 ? hostname : undefined;
  let agent: Agent;
  if (proxy !== null)
    agent = tunnelAgent(
      secure,
      proxy,
      ca === undefined
        ? AGENT_OPTIONS
        : { ...AGENT_OPTIONS, ca: ca as string | Buffer | (string | Buffer)[] },
    );
  else if (ca !== undefined) agent = asAgent(new PooledAgent({ secure, hostname, port, servername, ca }));
  else agent = asAgent(sharedAgent(secure, hostname, port, servername));
  return {
    request: secure ? httpsRequest : httpRequest,
    agent,
    hostname,
    port,
    // The URL keeps an IPv6 address in brackets and leaves out the scheme's own port, as Node's header does.
    host: url.host,
    servername,
    basePath: url.pathname === '/' ? '' : url.pathname.replace(/\/$/, ''),
    acceptEncoding: secure ? 'br, gzip, deflate' : 'gzip, deflate',
    proxy,
  };
}

function sharedAgent(
  secure: boolean,
  hostname: string,
  port: number,
  servername: string | undefined,
): PooledAgent {
  const key = `${secure ? 'https' : 'http'}:${hostname}:${port}`;
  let agent = shared.get(key);
  if (agent === undefined) {
    agent = new PooledAgent({ secure, hostname, port, servername, ca: undefined });
    shared.set(key, agent);
  }
  return agent;
}
