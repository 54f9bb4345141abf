// Issue 40, item 1, through the CLI: `switchboard chat` and `switchboard models` read replies
// through the adapter's FetchTransport, so a small compressed body that decodes to 64 MiB ends
// the command with the cap named, having read no more than the cap and one read of the body.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const KEY = 'cli-compressed-key-5b8d';
const DECODED = 64 * 1024 * 1024;
const ONE_READ = 64 * 1024;

// Each request path picks its bomb: a status, an encoding and the body it decodes from.
const plain = Buffer.alloc(DECODED, ' ');
const gzip = gzipSync(plain, { level: 9 });
const bodies: Record<string, { status: number; encoding: string; body: Buffer }> = {
  '/ok/chat/completions': { status: 200, encoding: 'gzip', body: gzip },
  '/ok/models': { status: 200, encoding: 'gzip, gzip', body: gzipSync(gzip) },
  '/failing/chat/completions': {
    status: 500,
    encoding: 'br',
    body: brotliCompressSync(plain, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_LGWIN]: 24 },
    }),
  },
};

let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    const bomb = bodies[request.url ?? ''];
    if (bomb === undefined) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(bomb.status, {
      'content-type': 'application/json',
      'content-encoding': bomb.encoding,
      'content-length': String(bomb.body.byteLength),
    });
    response.end(bomb.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const at = (path: string) => ({ PRIMARY_API_KEY: KEY, PRIMARY_BASE_URL: `${url}${path}` });

/** The decoded bytes the printed failure says were read, checked against `cap`. */
function expectStoppedAt(stderr: string, cap: number): void {
  const read = Number(/(\d+) bytes read, counted after decoding/.exec(stderr)?.[1]);
  expect(read).toBeGreaterThan(cap);
  expect(read).toBeLessThanOrEqual(cap + ONE_READ);
}

describe('switchboard against compressed replies that decode past the caps (issue 40.1)', () => {
  it.each([
    ['chat', ['chat', 'hello']],
    ['chat --stream', ['chat', 'hello', '--stream']],
  ])('%s: a 65 KB gzip reply exits 1 as bad_reply naming the 16 MiB cap', async (_name, args) => {
    const run = await runCli(args, at('/ok'));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^switchboard: bad_reply: .*the reply body passed the 16 MiB cap \(maxReplyBytes\)/,
    );
    expectStoppedAt(run.stderr, 16 * 1024 * 1024);
  });

  it('chat: a 500 with a brotli body exits 1 typed by its status, naming the 64 KiB error cap', async () => {
    const run = await runCli(['chat', 'hello', '--timeout', '10'], at('/failing'));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^switchboard: server: .*the error body passed the 64 KiB cap/);
    expectStoppedAt(run.stderr, 64 * 1024);
  });

  it('models: a `gzip, gzip` listing exits 1 as bad_reply naming the 16 MiB cap', async () => {
    const run = await runCli(['models'], at('/ok'));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^switchboard: bad_reply: .*the reply body passed the 16 MiB cap \(maxReplyBytes\)/,
    );
    expectStoppedAt(run.stderr, 16 * 1024 * 1024);
    expect(run.stderr).not.toContain(KEY);
  });
});
