import type { ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import type { CallAttempt } from './call-attempt.js';
import { ChatError } from './chat-error.js';
import { NodeReply } from './node-reply.js';
import type { NodeTarget } from './node-target.js';
import { redact } from './redact.js';
import { requestHeaders } from './request-headers.js';
import { connectionFailure, describeCall } from './to-chat-error.js';
import { TUNNEL_SIGNAL } from './tunnel-agent.js';
import { checkedReply } from './wire-fetch.js';

// What a pooled connection the server closed while it sat idle fails with, when reused.
const DEAD_SOCKET_CODES: ReadonlySet<unknown> = new Set(['ECONNRESET', 'EPIPE']);

/**
 * Sends one attempt's request with `node:http`/`node:https` over `target`'s keep-alive
 * agent: the headers the call's own (`requestHeaders`) plus the `accept-encoding` fetch
 * would send; the attempt's signal (its deadline, the caller's) destroys the request and
 * its socket at once. A request on a pooled connection that fails before any reply
 * because the server had closed it while idle (reset, broken pipe) is sent once more on a
 * new connection, within the same attempt: what a keep-alive client does, since no server
 * read it. Then the reply is taken as any transport's (`checkedReply`: a redirect refused,
 * naming its status and target's origin; an error status read, bounded, and typed).
 * Resolves with a 2xx reply, its body unread.
 */
export async function nodeRequest(
  target: NodeTarget,
  attempt: CallAttempt,
  method: 'GET' | 'POST',
  path: string,
  body: string | null,
): Promise<NodeReply> {
  const headers = headerList(requestHeaders(attempt, body !== null), target, body);
  attempt.sent = true;
  let reply: NodeReply;
  try {
    reply = await exchange(target, attempt, method, target.basePath + path, headers, body, true);
  } catch (error) {
    if (attempt.failure) throw attempt.failure;
    throw attempt.fail(failureOf(error, attempt));
  }
  return checkedReply(reply, attempt);
}

/** One request on the wire; `retryDead`: whether a dead pooled connection may be replaced once. */
function exchange(
  target: NodeTarget,
  attempt: CallAttempt,
  method: 'GET' | 'POST',
  path: string,
  headers: string[],
  body: string | null,
  retryDead: boolean,
): Promise<NodeReply> {
  return new Promise<NodeReply>((resolve, reject) => {
    let request: ClientRequest;
    try {
      const options: RequestOptions & { [TUNNEL_SIGNAL]?: AbortSignal } = {
        agent: target.agent,
        hostname: target.hostname,
        port: target.port,
        // Named here, so Node does not work it out of the host per request (a name, not an address).
        ...(target.servername === undefined ? {} : { servername: target.servername }),
        path,
        method,
        headers,
      };
      // A tunnel being opened for this request is cancelled with it.
      if (target.proxy !== null) options[TUNNEL_SIGNAL] = attempt.signal;
      request = target.request(options);
    } catch (error) {
      // A header Node refuses (a key with a line break inside): nothing was sent.
      reject(error);
      return;
    }
    let answered = false;
    // The attempt's end (its deadline, the caller, a cap) destroys the request and its socket, until
    // the request closes: by then its socket may be back in the pool, serving another request. No
    // error is given, so none is emitted on a socket nobody listens to any more.
    const onAbort = (): void => {
      request.destroy();
    };
    if (attempt.aborted) onAbort();
    else attempt.onEnd(onAbort);
    request.on('close', () => attempt.offEnd(onAbort));
    request.on('response', (response: IncomingMessage) => {
      answered = true;
      try {
        resolve(new NodeReply(response, request));
      } catch (error) {
        request.destroy();
        reject(error);
      }
    });
    // Listened for as long as the request lives: a socket error after the reply reaches its body.
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (answered) return;
      if (retryDead && request.reusedSocket && DEAD_SOCKET_CODES.has(error.code) && !attempt.aborted) {
        resolve(exchange(target, attempt, method, path, headers, body, false));
        return;
      }
      reject(error);
    });
    request.end(body ?? undefined);
  });
}

/**
 * The request's headers as Node takes them whole (name, value, name, value…): the call's
 * own, the `accept-encoding` fetch would add, `host` and, with a body, its `content-length`,
 * as Node would add them. Node still checks every name and value (a line break in a key
 * throws), but builds no header map of its own per request.
 */
function headerList(own: Record<string, string>, target: NodeTarget, body: string | null): string[] {
  const list: string[] = [];
  for (const name in own) list.push(name, own[name] as string);
  list.push('accept-encoding', target.acceptEncoding, 'host', target.host);
  if (body !== null) list.push('content-length', String(Buffer.byteLength(body)));
  return list;
}

/**
 * What a request that got no reply failed with, typed: a reply declaring more codings than
 * are decoded is a `bad_reply`; the rest as for fetch (`connectionFailure`: the network's, or
 * headers past Node's limit).
 */
function failureOf(error: unknown, attempt: CallAttempt): ChatError {
  const { context } = attempt;
  if (error instanceof RangeError) {
    return new ChatError({
      kind: 'bad_reply',
      message: redact(`${describeCall(context)}: ${error.message}`, context.apiKey),
      retryable: false,
    });
  }
  return connectionFailure(error, context);
}
