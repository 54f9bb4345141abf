import { createServer, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { closeLoopbackServers, listenOnLoopback } from '../test/support/listen-on-loopback.js';
import { CallAttempt } from './call-attempt.js';
import { ChatError } from './chat-error.js';
import { readBody } from './read-body.js';

afterEach(closeLoopbackServers);

/** A loopback server answering every request with `answer`. */
async function serve(answer: (response: ServerResponse) => void): Promise<string> {
  return listenOnLoopback(createServer((_request, response) => answer(response)));
}

// An attempt that never ends while these reads run.
const never = new Promise<never>(() => {});

/** An attempt of a call to `url` with a per-attempt deadline of `timeoutMs`. */
function attemptOf(url: string, timeoutMs: number): CallAttempt {
  return new CallAttempt(1, { method: 'POST', url, apiKey: 'test-key', timeoutMs }, undefined);
}

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

  it("rejects with the attempt's failure when it is aborted while a declared-length body is still pending", async () => {
    const url = await serve((response) => {
      response.writeHead(200, { 'content-length': '100' });
      response.write('{"slow":');
    });
    const attempt = attemptOf(url, 60_000);
    const failure = new ChatError({ kind: 'aborted', message: 'stopped' });
    // Fetched without the attempt's signal, as a custom fetch may: only the race can end the read.
    const reading = readBody(await fetch(url), 1000, attempt.ended);
    setTimeout(() => attempt.abort(failure), 30);
    await expect(reading).rejects.toBe(failure);
    attempt.dispose();
  });

  it("rejects with a timeout when the attempt's deadline passes while a chunked body is still pending", async () => {
    const url = await serve((response) => response.write('{"slow":'));
    const attempt = attemptOf(url, 50);
    const reply = await fetch(url);
    expect(reply.headers.get('content-length')).toBeNull();
    await expect(readBody(reply, 1000, attempt.ended)).rejects.toMatchObject({ kind: 'timeout' });
    attempt.dispose();
  });

  it('holds the cap for a reply built in code whose declared length understates its body', async () => {
    const built = new Response('x'.repeat(5000), { headers: { 'content-length': '10' } });
    expect(await readBody(built, 1000, never)).toEqual({ text: '', overflowed: true });
  });
});
