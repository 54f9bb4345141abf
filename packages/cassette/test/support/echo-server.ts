import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback chat server that leaks the caller's key on purpose: every reply
 * carries it in `x-request-id` and `set-cookie`; the last user message picks the
 * body: `error` (a 401 whose body quotes the key), `encoded` (the key base64-encoded
 * in the content), anything else (a 200 whose content quotes the key).
 */
export async function startEchoServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    request.on('end', () => {
      const key = (request.headers.authorization ?? '').replace(/^Bearer /, '');
      const body = JSON.parse(text) as { messages: { content: string }[] };
      const last = body.messages.at(-1)?.content ?? '';
      response.setHeader('x-request-id', `req-${key}`);
      response.setHeader('set-cookie', `session=${key}`);
      response.setHeader('content-type', 'application/json');
      if (last === 'error') {
        response.statusCode = 401;
        response.end(
          JSON.stringify({
            error: { message: `Incorrect API key provided: ${key}`, type: 'invalid_request_error' },
          }),
        );
        return;
      }
      const content =
        last === 'encoded' ? Buffer.from(key).toString('base64') : `you sent ${key} and ${last}`;
      response.end(
        JSON.stringify({
          id: 'chatcmpl-echo',
          object: 'chat.completion',
          model: 'primary-flash',
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
