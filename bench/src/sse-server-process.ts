// A loopback server that answers every POST with the same precomputed stream of
// Server-Sent Events (src/sse-body.ts), in a child process of its own so that the
// benchmark process's CPU is the client's only. Sends `{ url, bytes }` over IPC
// once listening; exits when the IPC channel closes.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sseBody } from './sse-body.js';

const body = sseBody(Number(process.argv[2] ?? '100000'));
const PIECE = 64 * 1024;

const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    let offset = 0;
    const write = () => {
      while (offset < body.length) {
        const piece = body.subarray(offset, offset + PIECE);
        offset += piece.length;
        if (!response.write(piece)) {
          response.once('drain', write);
          return;
        }
      }
      response.end();
    };
    write();
  });
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.send?.({ url: `http://127.0.0.1:${port}`, bytes: body.length });
});
process.on('disconnect', () => {
  server.closeAllConnections();
  server.close();
});
