import type { Agent, ClientRequest, IncomingMessage } from 'node:http';
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { rawHeader } from './node-headers.js';

/** Certificates to trust for `https`, as `node:tls` takes them (they replace Node's own roots). */
export type TrustedCertificates = string | Buffer | ReadonlyArray<string | Buffer>;

/** Where a pooled agent connects: one origin, and for `https` its trust. */
export interface PooledOrigin {
  readonly secure: boolean;
  /** The host as sockets take it (an IPv6 address without brackets). */
  readonly hostname: string;
  readonly port: number;
  /** The name TLS asks for (SNI); undefined for an address. */
  readonly servername: string | undefined;
  /** Certificates to trust in place of Node's roots, or undefined. */
  readonly ca: TrustedCertificates | undefined;
}

/** Idle connections kept at most; more are closed as they come free (Node's `Agent` default). */
const MAX_IDLE = 256;
/** A pooled connection idle this long is closed (fetch's default; a server's `keep-alive: timeout=N` may ask sooner). */
const IDLE_MS = 4_000;
// The request a connection serves now; null while it sits idle (in the pool, or closing).
const serving = Symbol('serving');

type PooledSocket = Socket & { [serving]?: ClientRequest | null };

/**
 * A keep-alive agent for one origin, as `http.request` takes an agent (any object with
 * `addRequest`): a request gets the connection that came free last, or a new one. It does
 * what Node's `Agent` does for a request on a kept connection, without its per-request
 * work (an options object copied per request, a pool looked up by name, a timer reset
 * on each reuse and release): the connection's idle timeout is set once and reset by its
 * traffic, as Node's is; a connection is kept only when its request ended with the
 * reply read whole and the server allowed keep-alive (Node emits `free` only then, or
 * for a socket a cancelled request never used); an idle one that errs, ends, or stays
 * idle past the timeout is closed and forgotten; idle connections do not keep the process
 * alive. `reusedSocket` is set as Node's agent sets it, so a request on a connection the
 * server had closed can be sent again.
 */
export class PooledAgent {
  /** Read by `http.request`: requests say `connection: keep-alive`. */
  readonly keepAlive = true;
  readonly maxSockets = Number.POSITIVE_INFINITY;
  readonly protocol: 'http:' | 'https:';
  readonly defaultPort: number;
  readonly #origin: PooledOrigin;
  readonly #idle: PooledSocket[] = [];
  // The last TLS session the server gave, to resume the next connection's handshake.
  #session: Buffer | undefined;

  constructor(origin: PooledOrigin) {
    this.#origin = origin;
    this.protocol = origin.secure ? 'https:' : 'http:';
    this.defaultPort = origin.secure ? 443 : 80;
  }

  /** Called by `http.request` for each request: hands it a connection. */
  addRequest(request: ClientRequest): void {
    let socket = this.#idle.pop();
    while (socket?.destroyed) socket = this.#idle.pop();
    if (socket !== undefined) {
      socket.ref();
      request.reusedSocket = true;
    } else {
      socket = this.#connect();
    }
    socket[serving] = request;
    request.onSocket(socket);
  }

  #connect(): PooledSocket {
    const { secure, hostname, port, servername, ca } = this.#origin;
    const socket: PooledSocket = secure
      ? tlsConnect({
          host: hostname,
          port,
          ...(servername === undefined ? {} : { servername }),
          ...(ca === undefined ? {} : { ca: ca as string | Buffer | (string | Buffer)[] }),
          ...(this.#session === undefined ? {} : { session: this.#session }),
        })
      : netConnect({ host: hostname, port, noDelay: true });
    if (secure) socket.setNoDelay(true);
    socket.setTimeout(IDLE_MS);
    if (secure)
      socket.on('session', (session: Buffer) => {
        this.#session = session;
      });
    socket.on('free', () => this.#free(socket));
    socket.on('timeout', () => {
      if (socket[serving] === null) socket.destroy();
    });
    // In use, the request listens too; idle (or between its request's end and `free`), the error closes it.
    socket.on('error', () => {
      if (secure) this.#session = undefined;
      if (socket[serving] === null) socket.destroy();
    });
    socket.on('close', () => this.#forget(socket));
    // Taken over for another protocol (an upgrade): no longer pooled.
    socket.on('agentRemove', () => {
      socket[serving] = undefined;
      this.#forget(socket);
    });
    return socket;
  }

  // Node emits `free` when a request ended with its reply read whole on a keep-alive connection,
  // or when a request cancelled before it got its connection leaves it unused.
  #free(socket: PooledSocket): void {
    const request = socket[serving];
    if (request === undefined) return;
    socket[serving] = null;
    if (socket.destroyed || !socket.writable || request?.shouldKeepAlive !== true) {
      socket.destroy();
      return;
    }
    const idleMs = idleTimeoutOf((request as { res?: IncomingMessage | null }).res);
    if (idleMs === 0 || this.#idle.length >= MAX_IDLE) {
      socket.destroy();
      return;
    }
    if (socket.timeout !== idleMs) socket.setTimeout(idleMs);
    socket.unref();
    this.#idle.push(socket);
  }

  #forget(socket: PooledSocket): void {
    const at = this.#idle.indexOf(socket);
    if (at !== -1) this.#idle.splice(at, 1);
  }
}

/**
 * How long a connection may idle after this reply: the default, or less when the server
 * announced `keep-alive: timeout=N` (a second before it, as Node's agent does; 0 closes it).
 */
function idleTimeoutOf(reply: IncomingMessage | null | undefined): number {
  const hint = reply ? rawHeader(reply.rawHeaders, 'keep-alive') : null;
  if (hint === null) return IDLE_MS;
  const seconds = /^timeout=(\d+)/.exec(hint)?.[1];
  if (seconds === undefined) return IDLE_MS;
  return Math.min(IDLE_MS, Math.max(0, Number(seconds) * 1000 - 1000));
}

/** The pooled agent as `http.request`'s options type it. */
export function asAgent(agent: PooledAgent): Agent {
  return agent as unknown as Agent;
}
