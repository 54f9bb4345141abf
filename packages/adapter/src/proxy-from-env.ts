/** Variables as a process's environment holds them (an empty value counts as unset). */
export type ProxyEnv = Readonly<Record<string, string | undefined>>;

/** A proxy a transport tunnels through: its address (no credentials) and what it is told. */
export interface ProxySetting {
  /** `http:` or `https:` (TLS to the proxy itself). */
  readonly protocol: 'http:' | 'https:';
  readonly hostname: string;
  readonly port: number;
  /** `Basic …` from the proxy address's user and password, or undefined. Never shown. */
  readonly authorization: string | undefined;
  /** The variable it came from, to name it in messages (`HTTPS_PROXY`). */
  readonly variable: string;
}

const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 };

/**
 * The proxy requests to `target` go through, read from `env` as fetch users' proxy agent
 * (undici's `EnvHttpProxyAgent`, behind Node's `NODE_USE_ENV_PROXY`) reads it: for an
 * `https:` target `https_proxy`, then `HTTPS_PROXY`, then the HTTP ones; for an `http:`
 * target `http_proxy`, then `HTTP_PROXY`. `no_proxy` (else `NO_PROXY`) lists hosts reached
 * directly, separated by commas or spaces: `*` for every host, `name` for that host only,
 * `.name` or `*.name` for the hosts under it, each with an optional `:port`. A proxy
 * address without a scheme is `http://`. Null when none applies.
 * Throws a TypeError naming the variable for an address that is not an http(s) URL.
 */
export function proxyFromEnv(target: URL, env: ProxyEnv): ProxySetting | null {
  const secure = target.protocol === 'https:';
  const names = secure
    ? ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY']
    : ['http_proxy', 'HTTP_PROXY'];
  const variable = names.find((name) => variableValue(env, name) !== undefined);
  if (variable === undefined) return null;
  const port = Number(target.port) || (DEFAULT_PORTS[target.protocol] as number);
  if (
    bypassed(
      target.hostname.toLowerCase(),
      port,
      variableValue(env, 'no_proxy') ?? variableValue(env, 'NO_PROXY'),
    )
  ) {
    return null;
  }
  return proxySetting(variableValue(env, variable) as string, variable.toUpperCase());
}

function variableValue(env: ProxyEnv, name: string): string | undefined {
  const value = env[name];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** Whether NO_PROXY sends requests to `hostname`:`port` directly. */
function bypassed(hostname: string, port: number, noProxy: string | undefined): boolean {
  if (noProxy === undefined) return false;
  for (const entry of noProxy.split(/[,\s]/)) {
    if (entry === '') continue;
    if (entry === '*') return true;
    const withPort = /^(.+):(\d+)$/.exec(entry);
    const host = (withPort?.[1] ?? entry).toLowerCase();
    if (withPort && Number(withPort[2]) !== port) continue;
    if (host.startsWith('.') || host.startsWith('*')) {
      if (hostname.endsWith(host.replace(/^\*/, ''))) return true;
    } else if (hostname === host) return true;
  }
  return false;
}

function proxySetting(value: string, variable: string): ProxySetting {
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`);
  } catch {
    throw new TypeError(`${variable} is not a proxy address (an http:// or https:// URL)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(
      `${variable} names a ${url.protocol.slice(0, -1)} proxy; only http:// and https:// proxies are supported`,
    );
  }
  const user = decoded(url.username);
  const password = decoded(url.password);
  return {
    protocol: url.protocol,
    hostname: bare(url.hostname),
    port: Number(url.port) || (DEFAULT_PORTS[url.protocol] as number),
    authorization:
      user === '' && password === ''
        ? undefined
        : `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
    variable,
  };
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A host as sockets take it: an IPv6 address without its brackets. */
export function bare(hostname: string): string {
  return hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
}
