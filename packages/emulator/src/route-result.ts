import type { ServerResponse } from 'node:http';

/** What a route answers: a status, a JSON body, and extra headers. */
export interface RouteResult {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Writes `result` as a JSON response, or the first half of its JSON text when `truncate` is set. */
export function sendResult(response: ServerResponse, result: RouteResult, truncate = false): void {
  const text = JSON.stringify(result.body);
  sendText(response, result.status, truncate ? text.slice(0, Math.floor(text.length / 2)) : text, {
    ...result.headers,
    'content-type': 'application/json',
  });
}

/** Writes `text` with a content length, so even a cut body arrives as a complete HTTP response. */
export function sendText(
  response: ServerResponse,
  status: number,
  text: string,
  headers: Readonly<Record<string, string>>,
): void {
  if (response.destroyed || response.headersSent) return;
  response.writeHead(status, { ...headers, 'content-length': String(Buffer.byteLength(text)) });
  response.end(text);
}
