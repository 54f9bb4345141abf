import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ChatAdapter, OpenAITransport } from '../../src/index.js';
import { failureOf } from '../support/failure-of.js';
import { transportRequest } from '../support/transport-to.js';

// Issue 40.14: a reply whose headers pass the HTTP client's limit (a 1 MiB header, 100,000
// headers) came back as a retryable `connection` failure: every attempt asked for it again.

/** A raw server answering every request with `head` (status line and headers) and a small JSON body. */
async function rawServer(
  head: () => string,
): Promise<{ server: Server; url: string; requests: () => number }> {
  let requests = 0;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      // One answer per request line received (the request's small body comes with it).
      while (received.includes('POST /')) {
        received = received.slice(received.indexOf('POST /') + 6);
        requests += 1;
        socket.write(`${head()}content-type: application/json\r\ncontent-length: 2\r\n\r\n{}`);
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  servers.push({ server, sockets });
  return { server, url: `http://127.0.0.1:${port}`, requests: () => requests };
}

const servers: { server: Server; sockets: Set<Socket> }[] = [];
afterEach(async () => {
  for (const { server, sockets } of servers.splice(0)) {
    for (const socket of sockets) socket.destroy();
    server.close();
    await once(server, 'close');
  }
});

const oneLargeHeader = () => `HTTP/1.1 200 OK\r\nx-large: ${'a'.repeat(1024 * 1024)}\r\n`;
const manyHeaders = () => {
  const lines = ['HTTP/1.1 200 OK\r\n'];
  for (let index = 0; index < 100_000; index += 1) lines.push(`x-header-${index}: v\r\n`);
  return lines.join('');
};

describe('a reply whose headers pass the client’s limit (issue 40.14)', () => {
  it.each([
    ['one header of 1 MiB', oneLargeHeader],
    ['100,000 headers', manyHeaders],
  ])('%s: bad_reply naming the limit, not retried (one request reached the server)', async (_name, head) => {
    const { url, requests } = await rawServer(head);
    const transport = new OpenAITransport({ apiKey: 'sk-overflow', baseUrl: url, retryBackoffSeconds: 0.01 });
    const error = await failureOf(transport.completeChatRaw(transportRequest('Is the cache warm?', 10)));
    expect(error).toMatchObject({ kind: 'bad_reply', retryable: false });
    expect(error.message).toContain("the reply's headers passed the HTTP client's size limit");
    expect(requests()).toBe(1);
  });

  it('ends a ChatAdapter call the same way, after one request', async () => {
    const { url, requests } = await rawServer(oneLargeHeader);
    const adapter = new ChatAdapter(
      new OpenAITransport({ apiKey: 'sk-overflow', baseUrl: url, retryBackoffSeconds: 0.01 }),
    );
    const error = await failureOf(
      adapter.complete({ model: 'primary-flash', messages: [{ role: 'user', content: 'Status?' }] }),
    );
    expect(error).toMatchObject({ kind: 'bad_reply', retryable: false });
    expect(requests()).toBe(1);
  });
});
