import {
  type Agent,
  type AgentOptions,
  type ClientRequestArgs,
  Agent as HttpAgent,
  request as httpRequest,
} from 'node:http';
import {
  Agent as HttpsAgent,
  type AgentOptions as HttpsAgentOptions,
  request as httpsRequest,
} from 'node:https';
import type { Duplex } from 'node:stream';
import type { ProxySetting } from './proxy-from-env.js';

/** The request option a tunnel's `CONNECT` is cancelled by: the attempt's signal. */
export const TUNNEL_SIGNAL = 'switchboardTunnelSignal';

type Connected = (error: Error | null, socket: Duplex) => void;

/**
 * A keep-alive agent whose every new connection is a tunnel: a `CONNECT host:port` to
 * the proxy (`Proxy-Authorization` when its address had credentials), then, for an
 * `https:` target, TLS to the target over it (the agent's `ca`, server name and session
 * cache, as a direct connection has). Pooled like any other socket: a call on a kept
 * tunnel sends no second `CONNECT`.
 */
export function tunnelAgent(secureTarget: boolean, proxy: ProxySetting, options: HttpsAgentOptions): Agent {
  if (secureTarget) {
    return new (class extends HttpsAgent {
      override createConnection(request: ClientRequestArgs, connected?: Connected): undefined {
        openTunnel(proxy, request, options, (error, socket) => {
          if (error !== null) connected?.(error, socket);
          // TLS over the tunnel, as a direct connection: server name, `ca`, session cache.
          else
            connected?.(null, super.createConnection({ ...request, socket } as ClientRequestArgs) as Duplex);
        });
        return undefined;
      }
    })(options);
  }
  return new (class extends HttpAgent {
    override createConnection(request: ClientRequestArgs, connected?: Connected): undefined {
      openTunnel(proxy, request, options, (error, socket) => connected?.(error, socket));
      return undefined;
    }
  })(options as AgentOptions);
}

/** Opens a tunnel to the request's host through `proxy`, then calls `connected` once. */
function openTunnel(
  proxy: ProxySetting,
  request: ClientRequestArgs,
  options: HttpsAgentOptions,
  connected: Connected,
): void {
  const host = request.host ?? request.hostname ?? 'localhost';
  const authority = `${host.includes(':') ? `[${host}]` : host}:${request.port}`;
  const signal = (request as Record<string, unknown>)[TUNNEL_SIGNAL] as AbortSignal | undefined;
  const connect = (proxy.protocol === 'https:' ? httpsRequest : httpRequest)({
    hostname: proxy.hostname,
    port: proxy.port,
    method: 'CONNECT',
    path: authority,
    agent: false,
    headers: {
      host: authority,
      ...(proxy.authorization === undefined ? {} : { 'proxy-authorization': proxy.authorization }),
    },
    ...(proxy.protocol === 'https:' && options.ca !== undefined ? { ca: options.ca } : {}),
  });
  let done = false;
  const onAbort = (): void => {
    connect.destroy(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
  };
  const finish = (error: Error | null, socket: Duplex | null): void => {
    signal?.removeEventListener('abort', onAbort);
    if (done) {
      socket?.destroy();
      return;
    }
    done = true;
    connected(error, socket as Duplex);
  };
  connect.once('connect', (response, socket: Duplex, head: Buffer) => {
    if (response.statusCode !== 200) {
      socket.destroy();
      finish(new ProxyRefusedError(proxy, authority, response.statusCode ?? 0, response.statusMessage), null);
      return;
    }
    if (head.length > 0) socket.unshift(head);
    finish(null, socket);
  });
  connect.on('error', (error) => finish(error, null));
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  connect.end();
}

/** The proxy answered `CONNECT` with something but 200: no tunnel, nothing sent to the target. */
class ProxyRefusedError extends Error {
  readonly code = 'ERR_PROXY_TUNNEL';

  constructor(proxy: ProxySetting, authority: string, status: number, statusText: string | undefined) {
    super(
      `the proxy at ${proxy.protocol}//${proxy.hostname}:${proxy.port} (${proxy.variable}) answered CONNECT ${authority} with ${status}${statusText ? ` ${statusText}` : ''}`,
    );
    this.name = 'ProxyRefusedError';
  }
}
