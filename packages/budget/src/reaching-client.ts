import type { PgClientClass } from './load-pg.js';

/**
 * `Client` with one addition: `onReached` is told each time a client's socket reaches the server (the
 * TCP connection made, before the startup and the password check). A connection that reached the
 * server but did not start within the pool's connect timeout is a busy server, not an unreachable one.
 */
export function reachingClient(Client: PgClientClass, onReached: () => void): PgClientClass {
  return class ReachingClient extends Client {
    constructor(config: Record<string, unknown>) {
      super(config);
      const connection = (this as { connection?: { once?(event: string, listener: () => void): unknown } })
        .connection;
      connection?.once?.('connect', onReached);
    }
  };
}
