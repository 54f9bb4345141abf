import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { listenOnLoopback } from './listen-on-loopback.js';

/** A reply as it went through a {@link wireTap}: its status, headers and body as sent on. */
interface TappedReply {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** The body's text so far (the whole of it once the reply ended). */
  readonly body: string;
}

/** A tap's address, what went through it, and the reply bytes the client took from it. */
export interface WireTap {
  readonly url: string;
  readonly replies: readonly TappedReply[];
  /** Reply body bytes written to the client so far: a client that stops reading stops this too. */
  pulled(): number;
}

/**
 * A loopback server that forwards every request to `target` and every reply back as it
 * comes, with back-pressure (a client that stops reading stops the reply at its source),
 * keeping a copy of each: what a transport received, whichever transport it is (closed by
 * `closeLoopbackServers`). A client that drops its connection drops the forwarded request.
 */
export async function wireTap(target: string): Promise<WireTap> {
  const replies: TappedReply[] = [];
  let pulled = 0;
  const base = new URL(target);
  const server = createServer((incoming, outgoing) => {
    const headers = { ...incoming.headers, host: base.host };
    const upstream = httpRequest(
      {
        hostname: base.hostname,
        port: base.port,
        path: `${base.pathname.replace(/\/$/, '')}${incoming.url ?? ''}`,
        method: incoming.method,
        headers,
        agent: false,
      },
      (reply) => {
        const chunks: Buffer[] = [];
        replies.push({
          status: reply.statusCode ?? 0,
          headers: reply.headers,
          get body() {
            return Buffer.concat(chunks).toString('utf8');
          },
        });
        outgoing.writeHead(reply.statusCode ?? 0, reply.headers);
        reply.on('data', (chunk: Buffer) => {
          pulled += chunk.byteLength;
          chunks.push(chunk);
        });
        reply.pipe(outgoing);
      },
    );
    upstream.on('error', () => outgoing.destroy());
    outgoing.on('close', () => {
      if (!outgoing.writableFinished) upstream.destroy();
    });
    incoming.pipe(upstream);
  });
  const url = await listenOnLoopback(server);
  return { url, replies, pulled: () => pulled };
}
