import { createHash } from 'node:crypto';
import { createConnection, createServer, type Server, type Socket } from 'node:net';

/** A TCP proxy in front of redis-server that can lose the reply to one command, as a dropped connection does. */
export interface RedisProxy {
  readonly url: string;
  /**
   * The next time a client sends a command containing `marker` (e.g. a script's
   * SHA1), or any of several, let the command reach Redis, then drop that connection before its reply
   * goes back. Resolves when it happened.
   */
  dropReplyTo(marker: string | readonly string[]): Promise<void>;
  /** Replies lost so far. */
  readonly dropped: number;
  close(): Promise<void>;
}

/** The SHA1 ioredis sends with EVALSHA for a script. */
export function scriptSha(lua: string): string {
  return createHash('sha1').update(lua).digest('hex');
}

/** Starts a proxy on a free loopback port forwarding to `127.0.0.1:targetPort`. */
export async function startRedisProxy(targetPort: number): Promise<RedisProxy> {
  let armed: { markers: readonly string[]; done: () => void } | null = null;
  let dropped = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    const upstream = createConnection({ host: '127.0.0.1', port: targetPort });
    sockets.add(upstream);
    let dropNextReply: (() => void) | null = null;
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('data', (chunk: Buffer) => {
      if (armed?.markers.some((marker) => chunk.includes(marker))) {
        dropNextReply = armed.done;
        armed = null;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (dropNextReply !== null) {
        // The command ran in Redis; its reply never reaches the client.
        const done = dropNextReply;
        dropNextReply = null;
        dropped += 1;
        end();
        done();
        return;
      }
      client.write(chunk);
    });
    client.on('error', end);
    upstream.on('error', end);
    client.on('close', end);
    upstream.on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `redis://127.0.0.1:${port}`,
    dropReplyTo(marker) {
      return new Promise((resolve) => {
        armed = { markers: typeof marker === 'string' ? [marker] : marker, done: resolve };
      });
    },
    get dropped() {
      return dropped;
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
