import { parseBaseUrl } from './base-url.js';
import type { CallAttempt } from './call-attempt.js';
import { nodeRequest } from './node-request.js';
import { type NodeTarget, nodeTarget } from './node-target.js';
import { isRecord } from './read-field.js';
import { limitOptions, transportLimits } from './transport-limits.js';
import type { OpenAITransportOptions } from './transport-options.js';
import type { WireReply } from './wire-reply.js';
import { type WireCall, WireTransport } from './wire-transport.js';

/** Options of a {@link NodeTransport}: those of a `FetchTransport` but `fetch`, and where proxies and trust come from. */
export interface NodeTransportOptions extends Omit<OpenAITransportOptions, 'fetch'> {
  /**
   * The variables `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY` (either case) are read from;
   * default `process.env`, read once, when the transport is made. `{}` for no proxy.
   */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Certificates to trust for an `https` address (and an `https` proxy), in place of Node's
   * own roots (PEM text or buffers, as `node:tls` takes `ca`); default Node's roots, plus
   * `NODE_EXTRA_CA_CERTS`.
   */
  ca?: string | Buffer | ReadonlyArray<string | Buffer>;
}

/**
 * The real transport in Node, below `fetch`: POST `{baseUrl}/chat/completions` and GET
 * `{baseUrl}/models` with `node:http`/`node:https` over a keep-alive agent, the same requests
 * byte for byte as `FetchTransport` (and the `openai` SDK) sends, read by the same code:
 * one deadline per attempt covering the whole body, its own retry loop, bounded replies
 * (counted after `gzip`/`br`/`deflate` are undone, as they arrive), redirects refused,
 * `HTTPS_PROXY`/`HTTP_PROXY`/`NO_PROXY` tunnelled with `CONNECT`. A pooled connection
 * the server closed while idle is replaced once, in the same attempt. Failures reject
 * with a `ChatError`. The key stays private.
 */
export class NodeTransport extends WireTransport {
  readonly #apiKey: string;
  #target: NodeTarget;
  readonly #options: Pick<NodeTransportOptions, 'env' | 'ca'>;

  constructor(options: NodeTransportOptions) {
    if (!isRecord(options)) throw new TypeError(`${new.target.name} options must be an object`);
    const { apiKey, env, ca } = options;
    if (typeof apiKey !== 'string') {
      throw new TypeError(`apiKey must be a string ('' to send no credentials), got ${typeof apiKey}`);
    }
    if (env !== undefined && !isRecord(env)) throw new TypeError(`env must be an object, got ${typeof env}`);
    const baseUrl = parseBaseUrl(options.baseUrl, { name: 'baseUrl' });
    super(baseUrl, transportLimits(options));
    this.#apiKey = apiKey;
    this.#options = { ...(env === undefined ? {} : { env }), ...(ca === undefined ? {} : { ca }) };
    this.#target = nodeTarget(baseUrl, env ?? process.env, ca);
  }

  /** A copy with that many attempts per call, the same key, address, limits and connections (and class). */
  withMaxAttempts(attempts: number): NodeTransport {
    const Same = this.constructor as new (options: NodeTransportOptions) => NodeTransport;
    const copy = new Same({
      apiKey: this.#apiKey,
      baseUrl: this.baseUrl,
      ...limitOptions(this.limits, attempts),
      ...this.#options,
    });
    // Its connections are this transport's: a bounded copy reuses the pooled sockets.
    copy.#target = this.#target;
    return copy;
  }

  /** @internal */
  protected get apiKeyForRedaction(): string {
    return this.#apiKey;
  }

  /** @internal */
  protected send(attempt: CallAttempt, call: WireCall): Promise<WireReply> {
    const body = call.body === null ? null : JSON.stringify(call.body);
    return nodeRequest(this.#target, attempt, call.method, call.path, body);
  }
}
