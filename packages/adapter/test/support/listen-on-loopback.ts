import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const servers: Server[] = [];

/**
 * Makes `server` listen on 127.0.0.1 at a free port and returns its base address; the next
 * `closeLoopbackServers()` closes it (call that in afterEach).
 */
export async function listenOnLoopback(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Closes every server `listenOnLoopback` opened since the last call, and their connections. */
export async function closeLoopbackServers(): Promise<void> {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
}
