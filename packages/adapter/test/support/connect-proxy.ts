import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { SelfSigned } from './self-signed.js';

/** One `CONNECT` a proxy received: its target and its `Proxy-Authorization` header. */
export interface ProxiedConnect {
  readonly authority: string;
  readonly authorization: string | undefined;
}

/** How a {@link connectProxy} answers. */
export interface ConnectProxyOptions {
  /** Serve the proxy itself over TLS with this certificate (an `https://` proxy). */
  readonly tls?: SelfSigned;
  /** Answer every `CONNECT` with this status instead of opening the tunnel. */
  readonly refuse?: number;
  /** Never answer a `CONNECT` (the connection stays open). */
  readonly hang?: boolean;
}

const open: { server: Server; sockets: Set<Duplex> }[] = [];

/**
 * A real HTTP proxy on loopback that serves `CONNECT` only, as corporate proxies do for
 * `https`: it records each, answers `200 Connection Established` and pipes the bytes both
 * ways to the target. `closeConnectProxies()` closes it and every tunnel.
 */
export async function connectProxy(
  options: ConnectProxyOptions = {},
): Promise<{ url: string; connects: ProxiedConnect[] }> {
  const connects: ProxiedConnect[] = [];
  const sockets = new Set<Duplex>();
  const track = (socket: Duplex): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
  };
  const server = options.tls ? createHttpsServer(options.tls) : createHttpServer();
  server.on('request', (_request, response) => {
    response.writeHead(405).end();
  });
  server.on('connect', (request, client: Duplex, head: Buffer) => {
    track(client);
    const authority = request.url ?? '';
    connects.push({ authority, authorization: request.headers['proxy-authorization'] });
    if (options.hang) return;
    if (options.refuse !== undefined) {
      client.end(`HTTP/1.1 ${options.refuse} Refused\r\ncontent-length: 0\r\n\r\n`);
      return;
    }
    const at = authority.lastIndexOf(':');
    const host = authority.slice(0, at).replace(/^\[|\]$/g, '');
    const target: Socket = connect(Number(authority.slice(at + 1)), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) target.write(head);
      target.pipe(client);
      client.pipe(target);
    });
    track(target);
    target.on('close', () => client.destroy());
    client.on('close', () => target.destroy());
  });
  server.on('connection', track);
  open.push({ server, sockets });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`, connects };
}

/** Closes every proxy `connectProxy` opened, and its tunnels. */
export async function closeConnectProxies(): Promise<void> {
  await Promise.all(
    open.splice(0).map(({ server, sockets }) => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    }),
  );
}
