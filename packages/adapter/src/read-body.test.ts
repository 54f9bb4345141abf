import { createServer, type ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
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
const never = { ended: new Promise<never>(() => {}) };

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
    expect(await readBody(reply, 1024, never)).toEqual({
      text: body,
      overflowed: false,
      bytesRead: Buffer.byteLength(body),
    });
  });

  it('drops a plain reply that declares a length past the cap, reading none of it', async () => {
    const url = await serve((response) => response.end('x'.repeat(5000)));
    expect(await readBody(await fetch(url), 1000, never)).toEqual({
      text: '',
      overflowed: true,
      bytesRead: 0,
    });
  });

  it('reads a gzip reply decoded, counting the decoded bytes', async () => {
    const body = JSON.stringify({ ok: 'é'.repeat(100) });
    const url = await serve((response) => {
      response.writeHead(200, { 'content-encoding': 'gzip' });
      response.end(gzipSync(body));
    });
    expect(await readBody(await fetch(url), 1024, never)).toEqual({
      text: body,
      overflowed: false,
      bytesRead: Buffer.byteLength(body),
    });
  });

  it('caps a gzip reply by its decoded bytes, whatever its declared (compressed) length', async () => {
    const compressed = gzipSync(Buffer.alloc(1024 * 1024, ' '));
    const url = await serve((response) => {
      response.writeHead(200, { 'content-encoding': 'gzip', 'content-length': String(compressed.length) });
      response.end(compressed);
    });
    const reply = await fetch(url);
    expect(Number(reply.headers.get('content-length'))).toBeLessThan(64 * 1024);
    const body = await readBody(reply, 64 * 1024, never);
    expect(body).toMatchObject({ text: '', overflowed: true });
    // One read past the cap, at most: never the whole megabyte.
    expect(body.bytesRead).toBeGreaterThan(64 * 1024);
    expect(body.bytesRead).toBeLessThanOrEqual(128 * 1024);
  });

  it('caps a chunked reply that declares no length', async () => {
    const url = await serve((response) => {
      response.write('x'.repeat(600));
      response.end('y'.repeat(600));
    });
    const reply = await fetch(url);
    expect(reply.headers.get('content-length')).toBeNull();
    expect(await readBody(reply, 1000, never)).toEqual({ text: '', overflowed: true, bytesRead: 1200 });
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
    const reading = readBody(await fetch(url), 1000, attempt);
    setTimeout(() => attempt.abort(failure), 30);
    await expect(reading).rejects.toBe(failure);
    attempt.dispose();
  });

  it("rejects with a timeout when the attempt's deadline passes while a chunked body is still pending", async () => {
    const url = await serve((response) => response.write('{"slow":'));
    const attempt = attemptOf(url, 50);
    const reply = await fetch(url);
    expect(reply.headers.get('content-length')).toBeNull();
    await expect(readBody(reply, 1000, attempt)).rejects.toMatchObject({ kind: 'timeout' });
    attempt.dispose();
  });

  it('holds the cap for a reply built in code whose declared length understates its body', async () => {
    const built = new Response('x'.repeat(5000), { headers: { 'content-length': '10' } });
    expect(await readBody(built, 1000, never)).toEqual({ text: '', overflowed: true, bytesRead: 5000 });
  });
});
