import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

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
