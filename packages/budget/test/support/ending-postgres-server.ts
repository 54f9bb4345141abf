// A PostgreSQL look-alike that ends each connection in the same read as it accepts it: "authentication
// ok", "ready for query" and a FATAL "terminating connection due to unexpected postmaster exit" in one
// write, what a client of a server killed at the wrong moment reads.
import { createServer, type Server, type Socket } from 'node:net';

/** One backend message: its type, its length (itself included) and its body. */
function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

const AUTHENTICATION_OK = message('R', Buffer.from([0, 0, 0, 0]));
const READY_FOR_QUERY = message('Z', Buffer.from('I', 'latin1'));
const FATAL = message(
  'E',
  Buffer.from(
    'SFATAL\0VFATAL\0C57P01\0Mterminating connection due to unexpected postmaster exit\0\0',
    'latin1',
  ),
);

/** The server: its `postgres://` address (with a password no message may show), and how many connections it ended. */
export interface EndingPostgresServer {
  readonly url: string;
  readonly password: string;
  accepted(): number;
  close(): Promise<void>;
}

export async function startEndingPostgresServer(): Promise<EndingPostgresServer> {
  let accepted = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.once('data', () => {
      accepted += 1;
      // The startup message read: accepted, ready, and ended, in one write.
      socket.end(Buffer.concat([AUTHENTICATION_OK, READY_FOR_QUERY, FATAL]));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the ending server has no port');
  const password = 'secret-password';
  return {
    url: `postgres://budget:${password}@127.0.0.1:${address.port}/postgres`,
    password,
    accepted: () => accepted,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
