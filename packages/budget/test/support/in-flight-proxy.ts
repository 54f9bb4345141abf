import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A loopback HTTP proxy that counts the requests it has passed on and not yet seen answered. */
export interface InFlightProxy {
  readonly url: string;
  /** The most requests in flight at once so far. */
  readonly peakInFlight: number;
  readonly inFlight: number;
  close(): Promise<void>;
}

/**
 * Starts a proxy in front of `target`. A request counts from its arrival until
 * the target's answer has been read whole or the target dropped the connection,
 * which is before the client can see the outcome, so the count never runs ahead
 * of the slots the clients hold.
 */
export async function startInFlightProxy(target: string): Promise<InFlightProxy> {
  const upstream = new URL(target);
  let inFlight = 0;
  let peak = 0;
  const server: Server = createServer((incoming, outgoing) => {
    inFlight += 1;
    peak = Math.max(peak, inFlight);
    let counted = true;
    const done = () => {
      if (counted) inFlight -= 1;
      counted = false;
    };
    const forward = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers: incoming.headers,
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('error', () => {
          done();
          outgoing.destroy();
        });
        answer.on('end', () => {
          done();
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          outgoing.end(Buffer.concat(chunks));
        });
      },
    );
    forward.on('error', () => {
      done();
      outgoing.destroy();
    });
    incoming.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get peakInFlight() {
      return peak;
    },
    get inFlight() {
      return inFlight;
    },
    close() {
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
