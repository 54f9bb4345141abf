import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { costOf, priceOf } from '@switchboard/prices';

/** A loopback HTTP proxy that counts the requests it has passed on and not yet seen answered. */
export interface InFlightProxy {
  readonly url: string;
  /** The most requests in flight at once so far. */
  readonly peakInFlight: number;
  readonly inFlight: number;
  /**
   * What the target billed: the cost, at the shipped prices of the reply's model, of
   * every 200 reply with usage it sent, in nano-dollars rounded as a budget settles
   * a record; whether or not the client then read it.
   */
  readonly billedNanoUsd: number;
  /** How many replies were billed. */
  readonly billedCalls: number;
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
  let billedNanoUsd = 0;
  let billedCalls = 0;
  const bill = (status: number | undefined, body: Buffer) => {
    if (status !== 200) return;
    try {
      const reply = JSON.parse(body.toString('utf8')) as { model?: unknown; usage?: unknown };
      const cost = typeof reply.model === 'string' ? costOf(priceOf(reply.model), reply.usage) : null;
      if (cost === null) return;
      billedNanoUsd += Math.round(cost * 1e9);
      billedCalls += 1;
    } catch {
      // Not a chat reply (or not JSON): nothing billed.
    }
  };
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
          bill(answer.statusCode, Buffer.concat(chunks));
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
    get billedNanoUsd() {
      return billedNanoUsd;
    },
    get billedCalls() {
      return billedCalls;
    },
    close() {
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
