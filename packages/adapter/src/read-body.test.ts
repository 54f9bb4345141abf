import { createServer, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { closeLoopbackServers, listenOnLoopback } from '../test/support/listen-on-loopback.js';
import { readBody } from './read-body.js';

afterEach(closeLoopbackServers);

/** A loopback server answering every request with `answer`. */
async function serve(answer: (response: ServerResponse) => void): Promise<string> {
  return listenOnLoopback(createServer((_request, response) => answer(response)));
}

const never = new AbortController().signal;

describe('readBody', () => {
  it('reads a reply that declares its length within the cap whole', async () => {
    const body = JSON.stringify({ ok: 'é'.repeat(100) });
    const url = await serve((response) => response.end(body));
    const reply = await fetch(url);
    expect(reply.headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
    expect(await readBody(reply, 1024, never)).toEqual({ text: body, overflowed: false });
  });

  it('drops a reply that declares a length past the cap, reading none of the rest', async () => {
    const url = await serve((response) => response.end('x'.repeat(5000)));
    expect(await readBody(await fetch(url), 1000, never)).toEqual({ text: '', overflowed: true });
  });

  it('caps a chunked reply that declares no length', async () => {
    const url = await serve((response) => {
      response.write('x'.repeat(600));
      response.end('y'.repeat(600));
    });
    const reply = await fetch(url);
    expect(reply.headers.get('content-length')).toBeNull();
    expect(await readBody(reply, 1000, never)).toEqual({ text: '', overflowed: true });
  });

  it('rejects a body cut off before its declared length', async () => {
    const url = await serve((response) => {
      response.writeHead(200, { 'content-length': '100' });
      response.write('{"partial":');
      setTimeout(() => response.socket?.destroy(), 20);
    });
    await expect(readBody(await fetch(url), 1000, never)).rejects.toThrow();
  });

  it('rejects with the signal reason while a declared-length body is still pending', async () => {
    const url = await serve((response) => {
      response.writeHead(200, { 'content-length': '100' });
      response.write('{"slow":');
    });
    const controller = new AbortController();
    const reason = new Error('deadline');
    const reading = readBody(await fetch(url), 1000, controller.signal);
    setTimeout(() => controller.abort(reason), 30);
    await expect(reading).rejects.toBe(reason);
  });

  it('holds the cap for a reply built in code whose declared length understates its body', async () => {
    const built = new Response('x'.repeat(5000), { headers: { 'content-length': '10' } });
    expect(await readBody(built, 1000, never)).toEqual({ text: '', overflowed: true });
  });
});
