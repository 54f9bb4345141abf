import type { ServerResponse } from 'node:http';
import type { Generation } from '../billing/generation.js';
import type { StreamShape } from '../chat/stream-events.js';
import type { Reply } from './deliver-reply.js';
import { jsonText } from './json-text.js';

/** What a route answers: a status, a JSON body, and extra headers. */
export interface RouteResult {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /** Set when the request asked for a stream (`stream: true`): how to stream the body. */
  readonly stream?: StreamShape;
  /** Set on a completion the emulator generated: what its usage reports, for the bill. */
  readonly generation?: Generation;
}

/** `result` as a JSON reply, or only the first half of its JSON text when `truncate` is set. */
export function jsonReply(result: RouteResult, truncate = false): Reply {
  const text = jsonText(result.body);
  return {
    status: result.status,
    headers: { ...result.headers, 'content-type': 'application/json' },
    body: truncate ? text.slice(0, Math.floor(text.length / 2)) : text,
  };
}

/** Writes `result` as a JSON response at once (for answers that need no fault delivery). */
export function sendResult(response: ServerResponse, result: RouteResult): void {
  if (response.destroyed || response.headersSent) return;
  const { status, headers, body } = jsonReply(result);
  response.writeHead(status, { ...headers, 'content-length': String(Buffer.byteLength(body as string)) });
  response.end(body);
}
