// NodeTransport's own promises, beside the wire suites it shares with FetchTransport (each of
// those runs against both): connections kept and reused, a pooled connection the server closed
// replaced once, an abort closing the socket, TLS to a real https server with a certificate made
// for the test, and proxies named by HTTPS_PROXY / HTTP_PROXY / NO_PROXY through a real CONNECT
// proxy on loopback.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { ChatAdapter, NodeTransport, type NodeTransportOptions } from '../../src/index.js';
import { closeConnectProxies, connectProxy } from '../support/connect-proxy.js';
import { failureOf } from '../support/failure-of.js';
import { closeLoopbackServers, listenOnLoopback } from '../support/listen-on-loopback.js';
import { runBuiltScript } from '../support/run-built-script.js';
import { selfSigned } from '../support/self-signed.js';
import { transportRequest } from '../support/transport-to.js';

const KEY = 'node-transport-key-8d2b';
const request = transportRequest('Is the migration done?', 10);
const REPLY = JSON.stringify({
  id: 'chatcmpl-node',
  object: 'chat.completion',
  model: 'primary-flash',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Done.' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 },
});
const certificate = selfSigned();

afterEach(async () => {
  await closeConnectProxies();
  await closeLoopbackServers();
});

/** What a test server saw: connections, and each request with its connection's number. */
interface Seen {
  connections: number;
  readonly requests: { readonly connection: number; readonly headers: IncomingMessage['headers'] }[];
}

type Handler = (request: IncomingMessage, response: ServerResponse, nth: number) => void;

const answer: Handler = (_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(REPLY);
};

/**
 * Counts connections (`connection`, or `secureConnection`: one per TLS session) and requests
 * (`nth`: the request's place on its connection, from 1).
 */
function counting(server: Server, handler: Handler, event = 'connection'): Seen {
  const seen: Seen = { connections: 0, requests: [] };
  const numbers = new WeakMap<Socket, { connection: number; requests: number }>();
  server.on(event, (socket: Socket) => {
    seen.connections += 1;
    numbers.set(socket, { connection: seen.connections, requests: 0 });
  });
  server.on('request', (incoming: IncomingMessage, response: ServerResponse) => {
    const counts = numbers.get(incoming.socket) ?? { connection: 0, requests: 0 };
    counts.requests += 1;
    seen.requests.push({ connection: counts.connection, headers: incoming.headers });
    incoming.resume();
    incoming.on('end', () => handler(incoming, response, counts.requests));
  });
  return seen;
}

async function httpServer(handler: Handler = answer): Promise<{ url: string; seen: Seen; server: Server }> {
  const server = createServer();
  const seen = counting(server, handler);
  return { url: await listenOnLoopback(server), seen, server };
}

async function httpsServer(handler: Handler = answer): Promise<{ url: string; seen: Seen }> {
  const server = createHttpsServer(certificate ?? {});
  const seen = counting(server as unknown as Server, handler, 'secureConnection');
  const url = await listenOnLoopback(server as unknown as Server);
  return { url: url.replace('http://', 'https://'), seen };
}

const transportAt = (baseUrl: string, options: Partial<NodeTransportOptions> = {}) =>
  new NodeTransport({ apiKey: KEY, baseUrl, env: {}, retryBackoffSeconds: 0.01, ...options });

describe('NodeTransport: host and length', () => {
  // The headers Node would add itself, written by the transport: the same values fetch sends.
  it.each([
    ['127.0.0.1', (port: number) => `127.0.0.1:${port}`],
    ['localhost', (port: number) => `localhost:${port}`],
    ['[::1]', (port: number) => `[::1]:${port}`],
  ])('sends host and content-length as fetch does, at %s', async (host, expected) => {
    const server = createServer();
    const seen = counting(server, answer);
    const port = Number(new URL(await listenOnLoopback(server)).port);
    if (host === '[::1]') {
      // The same server, moved to the IPv6 loopback.
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await new Promise<void>((resolve) => server.listen(port, '::1', resolve));
    }
    const body = JSON.stringify({ model: 'primary-flash', messages: request.messages, temperature: 0 });
    await transportAt(`http://${host}:${port}`).completeChatRaw(request);
    const received = await fetch(`http://${host}:${port}/chat/completions`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
    });
    await received.text();
    const [ours, theirs] = seen.requests.map((entry) => entry.headers);
    expect(ours?.host).toBe(expected(port));
    expect(ours?.host).toBe(theirs?.host);
    expect(ours?.['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(ours?.['content-length']).toBe(theirs?.['content-length']);
    expect(ours?.['transfer-encoding']).toBeUndefined();
  });
});

describe('NodeTransport: connections', () => {
  it('sends sequential calls over one kept connection', async () => {
    const { url, seen } = await httpServer();
    const transport = transportAt(url);
    for (let call = 0; call < 5; call += 1) await transport.completeChatRaw(request);
    expect(seen.requests).toHaveLength(5);
    expect(seen.connections).toBe(1);
  });

  it('shares the connection with its bounded copies', async () => {
    const { url, seen } = await httpServer();
    const adapter = new ChatAdapter(transportAt(url));
    await adapter.complete({ model: 'primary-flash', messages: request.messages });
    await adapter.bounded(10).complete({ model: 'primary-flash', messages: request.messages });
    expect(seen.connections).toBe(1);
  });

  it('replaces a pooled connection the server closed, once, within the same attempt', async () => {
    // Every connection answers its first request and drops at its second, unanswered: a server
    // whose idle timeout closed a kept connection as the next request went out on it.
    const { url, seen } = await httpServer((incoming, response, nth) => {
      if (nth === 1) answer(incoming, response, nth);
      else incoming.socket.destroy();
    });
    const adapter = new ChatAdapter(transportAt(url));
    await adapter.complete({ model: 'primary-flash', messages: request.messages });
    const response = await adapter.complete({ model: 'primary-flash', messages: request.messages });
    expect(response.content).toBe('Done.');
    expect(response.calls[0]?.attempts).toBe(1);
    expect(seen.requests.map((entry) => entry.connection)).toEqual([1, 1, 2]);
    // The same attempt sent again: not counted as a retry.
    expect(seen.requests.map((entry) => entry.headers['x-stainless-retry-count'])).toEqual(['0', '0', '0']);
  });

  it('replaces it only once: a new connection that drops too fails the attempt as connection', async () => {
    let answered = 0;
    const { url, seen } = await httpServer((incoming, response, nth) => {
      if (answered === 0) {
        answered += 1;
        answer(incoming, response, nth);
      } else incoming.socket.destroy();
    });
    const transport = transportAt(url, { maxAttempts: 1 });
    await transport.completeChatRaw(request);
    const error = await failureOf(transport.completeChatRaw(request));
    expect(error).toMatchObject({ kind: 'connection', retryable: true });
    expect(seen.requests.map((entry) => entry.connection)).toEqual([1, 1, 2]);
  });

  it("closes the socket at once when the caller's signal aborts a call in flight", async () => {
    const held: Socket[] = [];
    const { url } = await httpServer((incoming) => {
      held.push(incoming.socket);
    });
    const controller = new AbortController();
    const call = failureOf(transportAt(url).completeChatRaw({ ...request, signal: controller.signal }));
    while (held.length === 0) await new Promise((resolve) => setImmediate(resolve));
    const closed = once(held[0] as Socket, 'close');
    controller.abort(new Error('the user left'));
    expect(await call).toMatchObject({ kind: 'aborted' });
    await closed;
  });

  it('refuses a reply that declares more than five content codings, as fetch does', async () => {
    const { url } = await httpServer((_incoming, response) => {
      let body = Buffer.from(REPLY);
      for (let layer = 0; layer < 6; layer += 1) body = gzipSync(body);
      response.writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': Array(6).fill('gzip').join(', '),
      });
      response.end(body);
    });
    const error = await failureOf(transportAt(url).completeChatRaw(request));
    expect(error).toMatchObject({ kind: 'bad_reply', retryable: false });
    expect(error.message).toContain('the reply declares 6 content codings, more than 5');
  });
});

/** Answers as `answer` does, announcing `keep-alive: timeout=<seconds>`. */
const announcing =
  (seconds: number): Handler =>
  (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'keep-alive': `timeout=${seconds}` });
    response.end(REPLY);
  };

/** The server's side of each connection, as it is accepted. */
function serverSockets(server: Server): Socket[] {
  const sockets: Socket[] = [];
  server.on('connection', (socket: Socket) => sockets.push(socket));
  return sockets;
}

describe('NodeTransport: the pool of kept connections', () => {
  it('keeps no connection the server announces it will close within a second (keep-alive: timeout=1)', async () => {
    // Node's agent closes a kept connection a second before the server's announced timeout: here, at once.
    const { url, seen } = await httpServer(announcing(1));
    const transport = transportAt(url);
    for (let call = 0; call < 3; call += 1) await transport.completeChatRaw(request);
    expect(seen.requests.map((entry) => entry.connection)).toEqual([1, 2, 3]);
  });

  it('closes a kept connection a second before the timeout the server announced, then opens another', async () => {
    const { url, seen, server } = await httpServer(announcing(2));
    // The server itself would keep it a minute: only the client's idle timeout closes it.
    server.keepAliveTimeout = 60_000;
    const sockets = serverSockets(server);
    const transport = transportAt(url);
    await transport.completeChatRaw(request);
    await once(sockets[0] as Socket, 'close');
    await transport.completeChatRaw(request);
    expect(seen.requests.map((entry) => entry.connection)).toEqual([1, 2]);
  });

  it('drops an idle connection the server resets, without an unhandled error, and calls on a new one', async () => {
    const { url, seen, server } = await httpServer();
    const sockets = serverSockets(server);
    const transport = transportAt(url, { maxAttempts: 1 });
    await transport.completeChatRaw(request);
    // The reply was read whole: the connection sits idle in the pool when the server resets it.
    const closed = once(sockets[0] as Socket, 'close');
    (sockets[0] as Socket).resetAndDestroy();
    await closed;
    await transport.completeChatRaw(request);
    expect(seen.requests.map((entry) => entry.connection)).toEqual([1, 2]);
  });

  it('lets a process exit while its connection is kept: an idle one holds no reference', async () => {
    const { url, seen, server } = await httpServer();
    server.keepAliveTimeout = 60_000;
    const run = await runBuiltScript('kept-connection.mjs', { args: [url] });
    expect(run).toMatchObject({ code: 0, exitedByItself: true });
    expect(JSON.parse(run.stdout)).toEqual({ sockets: 0 });
    expect(seen.connections).toBe(1);
  });
});

describe.skipIf(certificate === null)(
  'NodeTransport over TLS (a self-signed certificate made with openssl)',
  () => {
    const cert = certificate?.cert ?? '';

    it('calls a real https server whose certificate it is given to trust, over one kept connection', async () => {
      const { url, seen } = await httpsServer();
      const transport = transportAt(url, { ca: cert });
      for (let call = 0; call < 3; call += 1) await transport.completeChatRaw(request);
      expect(seen.requests).toHaveLength(3);
      expect(seen.connections).toBe(1);
      // As fetch asks over https.
      expect(seen.requests[0]?.headers['accept-encoding']).toBe('br, gzip, deflate');
    });

    it("resumes the TLS session on its next connection, as Node's https agent does", async () => {
      // Every connection closed after its call (keep-alive: timeout=1): each call is a new handshake.
      const server = createHttpsServer(certificate ?? {});
      const resumed: boolean[] = [];
      server.on('secureConnection', (socket: TLSSocket) => resumed.push(socket.isSessionReused()));
      counting(server as unknown as Server, announcing(1), 'secureConnection');
      const url = (await listenOnLoopback(server as unknown as Server)).replace('http://', 'https://');
      const transport = transportAt(url, { ca: cert });
      for (let call = 0; call < 3; call += 1) await transport.completeChatRaw(request);
      expect(resumed).toEqual([false, true, true]);
    });

    it('refuses a certificate it does not trust: a connection failure naming why, nothing sent', async () => {
      const { url, seen } = await httpsServer();
      const error = await failureOf(transportAt(url, { maxAttempts: 1 }).completeChatRaw(request));
      expect(error).toMatchObject({ kind: 'connection' });
      expect(error.message).toMatch(/self[- ]signed certificate/);
      expect(seen.requests).toHaveLength(0);
    });
  },
);

describe('NodeTransport through a proxy from the environment', () => {
  it('tunnels an http address through HTTP_PROXY with CONNECT, its credentials sent to the proxy only', async () => {
    const proxy = await connectProxy();
    const { url, seen } = await httpServer();
    const withCredentials = proxy.url.replace('http://', 'http://build%20bot:p%40ss@');
    const transport = transportAt(url, { env: { HTTP_PROXY: withCredentials } });
    await transport.completeChatRaw(request);
    await transport.completeChatRaw(request);
    expect(proxy.connects).toEqual([
      {
        authority: new URL(url).host,
        authorization: `Basic ${Buffer.from('build bot:p@ss').toString('base64')}`,
      },
    ]);
    expect(seen.requests).toHaveLength(2);
    expect(seen.requests[0]?.headers).not.toHaveProperty('proxy-authorization');
  });

  it.each([
    ['the lower-case name first', { http_proxy: 'PROXY', HTTP_PROXY: 'http://127.0.0.1:9' }],
    ['an empty value as unset', { http_proxy: '', HTTP_PROXY: 'PROXY' }],
    ['an address without a scheme as http://', { HTTP_PROXY: 'BARE' }],
  ])('reads %s', async (_case, env: Record<string, string>) => {
    const proxy = await connectProxy();
    const { url } = await httpServer();
    const values = Object.fromEntries(
      Object.entries(env).map(([name, value]) => [
        name,
        value.replace('PROXY', proxy.url).replace('BARE', new URL(proxy.url).host),
      ]),
    );
    await transportAt(url, { env: values }).completeChatRaw(request);
    expect(proxy.connects).toHaveLength(1);
  });

  it.each([
    ['the host', '127.0.0.1', 0],
    ['the host and its port', '127.0.0.1:PORT', 0],
    ['every host', '*', 0],
    ['the host among others, with spaces', 'api.primary.example, 127.0.0.1', 0],
    ['another port of the host', '127.0.0.1:1', 1],
    ['a domain the host is not under', '.primary.example', 1],
  ])('NO_PROXY naming %s: %s', async (_case, noProxy, proxied) => {
    const proxy = await connectProxy();
    const { url, seen } = await httpServer();
    const env = { HTTP_PROXY: proxy.url, NO_PROXY: noProxy.replace('PORT', new URL(url).port) };
    await transportAt(url, { env }).completeChatRaw(request);
    expect(proxy.connects).toHaveLength(proxied);
    expect(seen.requests).toHaveLength(1);
  });

  it('fails as connection when the proxy refuses the tunnel, naming the proxy but never its credentials', async () => {
    const proxy = await connectProxy({ refuse: 407 });
    const { url, seen } = await httpServer();
    const env = { HTTP_PROXY: proxy.url.replace('http://', 'http://admin:hunter2-secret@') };
    const error = await failureOf(transportAt(url, { env, maxAttempts: 1 }).completeChatRaw(request));
    expect(error).toMatchObject({ kind: 'connection', retryable: true });
    expect(error.message).toContain(`the proxy at ${proxy.url} (HTTP_PROXY) answered CONNECT`);
    expect(error.message).toContain('with 407');
    expect(JSON.stringify({ error, message: error.message, cause: String(error.cause) })).not.toContain(
      'hunter2',
    );
    expect(seen.requests).toHaveLength(0);
  });

  it('ends a tunnel the proxy never answers at the attempt timeout', async () => {
    const proxy = await connectProxy({ hang: true });
    const { url } = await httpServer();
    const transport = transportAt(url, { env: { HTTP_PROXY: proxy.url }, maxAttempts: 1 });
    const error = await failureOf(transport.completeChatRaw({ ...request, timeoutSeconds: 0.3 }));
    expect(error).toMatchObject({ kind: 'timeout' });
    expect(proxy.connects).toHaveLength(1);
  });

  it('refuses a proxy scheme it cannot speak, naming the variable and not its value', () => {
    expect(() =>
      transportAt('https://api.primary.example', { env: { HTTPS_PROXY: 'socks5://u:secret@proxy:1080' } }),
    ).toThrow(/^HTTPS_PROXY names a socks5 proxy; only http:\/\/ and https:\/\/ proxies are supported$/);
  });

  describe.skipIf(certificate === null)('to an https address', () => {
    const cert = certificate?.cert ?? '';

    it('tunnels it through HTTPS_PROXY, TLS to the server inside the tunnel, one CONNECT for kept calls', async () => {
      const proxy = await connectProxy();
      const { url, seen } = await httpsServer();
      const transport = transportAt(url, { env: { HTTPS_PROXY: proxy.url }, ca: cert });
      for (let call = 0; call < 3; call += 1) await transport.completeChatRaw(request);
      expect(proxy.connects.map((connect) => connect.authority)).toEqual([new URL(url).host]);
      expect(seen.requests).toHaveLength(3);
      expect(seen.connections).toBe(1);
    });

    it('uses HTTP_PROXY when HTTPS_PROXY is unset, as fetch users get', async () => {
      const proxy = await connectProxy();
      const { url } = await httpsServer();
      await transportAt(url, { env: { HTTP_PROXY: proxy.url }, ca: cert }).completeChatRaw(request);
      expect(proxy.connects).toHaveLength(1);
    });

    it('speaks TLS to an https:// proxy too', async () => {
      const proxy = await connectProxy({ tls: certificate ?? undefined });
      const { url } = await httpsServer();
      const reply = await transportAt(url, { env: { HTTPS_PROXY: proxy.url }, ca: cert }).completeChatRaw(
        request,
      );
      expect(reply).toMatchObject({ id: 'chatcmpl-node' });
      expect(proxy.connects).toHaveLength(1);
    });
  });
});
