/** A reply read for a test: status, headers and the body as text and (when it parses) JSON. */
export interface TestReply {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON paths.
  readonly json: any;
}

/** Sends `body` as JSON to `url + path` with plain fetch and reads the whole reply. */
export async function postJson(
  url: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<TestReply> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return readReply(response);
}

/** POSTs a chat request to `/chat/completions`. */
export function postChat(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<TestReply> {
  return postJson(url, '/chat/completions', body, headers);
}

/** Sends a request without a body and reads the whole reply. */
export async function request(
  url: string,
  path: string,
  method = 'GET',
  headers: Record<string, string> = {},
): Promise<TestReply> {
  return readReply(await fetch(`${url}${path}`, { method, headers }));
}

async function readReply(response: Response): Promise<TestReply> {
  const text = await response.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** A user message. */
export function user(content: string): Record<string, unknown> {
  return { role: 'user', content };
}
