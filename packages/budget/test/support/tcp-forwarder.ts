import { once } from 'node:events';
import { createConnection, createServer, type Socket } from 'node:net';

/** A TCP forwarder on a free loopback port whose target can change, as a DNS name or a failover does. */
export interface TcpForwarder {
  /** `redis://127.0.0.1:<port>` of the forwarder. */
  readonly url: string;
  /**
   * Forwards new connections to `127.0.0.1:port` from now on, or drops each as it
   * arrives (`null`: the server is away); the connections open now are dropped.
   */
  retarget(port: number | null): void;
  /** Resolves once a connection made from now on reached `127.0.0.1:port`. */
  nextConnectionTo(port: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts a forwarder to `127.0.0.1:port`. */
export async function startTcpForwarder(port: number | null): Promise<TcpForwarder> {
  let target = port;
  const open = new Set<Socket>();
  const waiting = new Map<number, Array<() => void>>();
  const server = createServer((client) => {
    open.add(client);
    client.on('close', () => open.delete(client));
    client.on('error', () => client.destroy());
    if (target === null) {
      client.destroy();
      return;
    }
    const to = target;
    const upstream = createConnection({ host: '127.0.0.1', port: to });
    open.add(upstream);
    upstream.on('close', () => {
      open.delete(upstream);
      client.destroy();
    });
    client.on('close', () => upstream.destroy());
    upstream.on('error', () => upstream.destroy());
    upstream.on('connect', () => {
      for (const resolve of waiting.get(to)?.splice(0) ?? []) resolve();
    });
    client.pipe(upstream);
    upstream.pipe(client);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const listening = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `redis://127.0.0.1:${listening}`,
    retarget(next) {
      target = next;
      for (const socket of open) socket.destroy();
    },
    nextConnectionTo(to) {
      return new Promise((resolve) => {
        const list = waiting.get(to) ?? [];
        list.push(resolve);
        waiting.set(to, list);
      });
    },
    async close() {
      for (const socket of open) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}
