import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChatAdapter, type ChatTransport } from '@switchboard/adapter';
import { afterAll, beforeAll } from 'vitest';

/** The data of each event of a long stream: `count` content chunks of a few characters, then the usage and `[DONE]`. */
export function longStreamData(
  count: number,
  text: (index: number) => string = (index) => ` w${index}`,
): string[] {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    JSON.stringify({
      id: 'chatcmpl-long',
      object: 'chat.completion.chunk',
      created: 1764100000,
      model: 'primary-flash',
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
  return [
    chunk({ role: 'assistant', content: '' }),
    ...Array.from({ length: count }, (_, index) => chunk({ content: text(index) })),
    chunk({}, 'stop'),
    JSON.stringify({
      id: 'chatcmpl-long',
      object: 'chat.completion.chunk',
      created: 1764100000,
      model: 'primary-flash',
      choices: [],
      usage: { prompt_tokens: 5, completion_tokens: count, total_tokens: count + 5 },
    }),
    '[DONE]',
  ];
}

/** A loopback server that answers every POST with the events of `data`, written as one body. */
export async function startSseServer(
  data: readonly string[],
): Promise<{ url: string; close: () => Promise<void> }> {
  const body = data.map((item) => `data: ${item}\n\n`).join('');
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(body);
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

/** What the long streams of the tests answer. */
const GO_ON = { model: 'primary-flash', messages: [{ role: 'user' as const, content: 'go on' }] };

/** Serves `data` (see `startSseServer`) from before the file's tests to after them; the server's URL. */
export function serveDuringTests(data: readonly string[]): () => string {
  let server: Awaited<ReturnType<typeof startSseServer>> | undefined;
  beforeAll(async () => {
    server = await startSseServer(data);
  });
  afterAll(() => server?.close());
  return () => {
    if (server === undefined) throw new Error('the SSE server is not started yet');
    return server.url;
  };
}

/** The content text of `GO_ON` streamed through `transport`, read to its end. */
export async function streamedText(transport: ChatTransport): Promise<string> {
  const stream = new ChatAdapter(transport).stream(GO_ON);
  let text = '';
  for await (const delta of stream) if (delta.type === 'content') text += delta.text;
  await stream.response;
  return text;
}
