import { once } from 'node:events';
import { get, type IncomingMessage } from 'node:http';
import { createServer, type Server } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeHeaders } from './node-headers.js';

// A raw server answering each connection with the header block the test sets, so the reply carries
// exactly those lines, repeats and letter cases included.
let block = '';
let server: Server;
let port = 0;

beforeAll(async () => {
  server = createServer((socket) => {
    socket.once('data', () =>
      socket.end(`HTTP/1.1 200 OK\r\n${block}content-length: 0\r\nconnection: close\r\n\r\n`),
    );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as { port: number }).port;
});
afterAll(() => {
  server.close();
});

async function replyWith(lines: readonly (readonly [string, string])[]): Promise<IncomingMessage> {
  block = lines.map(([name, value]) => `${name}: ${value}\r\n`).join('');
  const request = get({ host: '127.0.0.1', port, agent: false });
  const [response] = (await once(request, 'response')) as [IncomingMessage];
  response.resume();
  await once(response, 'end');
  return response;
}

// Names Node keeps once when repeated, names it joins, in several letter cases.
const name = fc.constantFrom(
  'Content-Type',
  'content-type',
  'Retry-After',
  'Location',
  'Server',
  'Age',
  'Content-Encoding',
  'content-encoding',
  'Keep-Alive',
  'Set-Cookie',
  'X-Request-Id',
  'x-request-id',
  'X-B',
);
const value = fc.stringMatching(/^[A-Za-z0-9=;,.-]{1,12}$/);

describe('NodeHeaders', () => {
  it('reads every header as Node’s own record gives it, repeats and cases included, and lists them sorted', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(name, value), { maxLength: 8 }), async (lines) => {
        const response = await replyWith(lines);
        const headers = new NodeHeaders(response.rawHeaders);
        for (const [header] of lines) {
          const own = response.headers[header.toLowerCase()];
          const expected = own === undefined ? null : Array.isArray(own) ? own.join(', ') : own;
          expect(headers.get(header)).toBe(expected);
          expect(headers.get(header.toUpperCase())).toBe(expected);
        }
        expect(headers.get('absent')).toBeNull();
        const listed = [...headers];
        expect(listed.map(([header]) => header)).toEqual(
          Object.keys(response.headers)
            .filter((header) => header !== 'content-length' && header !== 'connection')
            .concat('connection', 'content-length')
            .sort(),
        );
      }),
      { numRuns: 60 },
    );
  });
});
