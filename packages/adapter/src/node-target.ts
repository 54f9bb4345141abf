import { type Agent, Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { bare, type ProxyEnv, type ProxySetting, proxyFromEnv } from './proxy-from-env.js';
import { tunnelAgent } from './tunnel-agent.js';

/** Certificates to trust for `https`, as `node:tls` takes them (they replace Node's own roots). */
export type TrustedCertificates = string | Buffer | ReadonlyArray<string | Buffer>;

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

// Pooled connections idle this long are closed (or sooner, as a server's `keep-alive: timeout=N`
// asks, less a second): fetch's own default, so a server's idle timeout rarely races a reuse.
const AGENT_OPTIONS = { keepAlive: true, timeout: 4_000, scheduling: 'lifo' } as const;

let sharedHttp: Agent | undefined;
let sharedHttps: Agent | undefined;

/**
 * The target of a base address: a keep-alive agent shared by every transport without a
 * proxy or certificates of its own (so they share connections), else one of its own;
 * the proxy from `env` (see `proxyFromEnv`), tunnelled with `CONNECT`.
 */
export function nodeTarget(baseUrl: string, env: ProxyEnv, ca: TrustedCertificates | undefined): NodeTarget {
  const url = new URL(baseUrl);
  const secure = url.protocol === 'https:';
  const proxy = proxyFromEnv(url, env);
  const options =
    ca === undefined ? AGENT_OPTIONS : { ...AGENT_OPTIONS, ca: ca as string | Buffer | (string | Buffer)[] };
  let agent: Agent;
  if (proxy !== null) agent = tunnelAgent(secure, proxy, options);
  else if (ca !== undefined) agent = secure ? new HttpsAgent(options) : new HttpAgent(options);
  else if (secure) agent = sharedHttps ??= new HttpsAgent(AGENT_OPTIONS);
  else agent = sharedHttp ??= new HttpAgent(AGENT_OPTIONS);
  return {
    request: secure ? httpsRequest : httpRequest,
    agent,
    hostname: bare(url.hostname),
    port: Number(url.port) || (secure ? 443 : 80),
    // The URL keeps an IPv6 address in brackets and leaves out the scheme's own port, as Node's header does.
    host: url.host,
    servername: isIP(bare(url.hostname)) === 0 ? bare(url.hostname) : undefined,
    basePath: url.pathname === '/' ? '' : url.pathname.replace(/\/$/, ''),
    acceptEncoding: secure ? 'br, gzip, deflate' : 'gzip, deflate',
    proxy,
  };
}
