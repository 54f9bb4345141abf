import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { request } from '../../test/support/test-support.js';
import { CLI_USAGE, runCli } from './run-cli.js';

function capture(): { write(text: string): void; text(): string } {
  let output = '';
  return {
    write(text: string) {
      output += text;
    },
    text: () => output,
  };
}

async function waitForUrl(stdout: { text(): string }, running: Promise<number>): Promise<string> {
  let exited = false;
  void running.finally(() => {
    exited = true;
  });
  for (;;) {
    const match = /listening on (http:\/\/\S+)/.exec(stdout.text());
    if (match?.[1] !== undefined) return match[1];
    if (exited) throw new Error(`runCli exited before listening: ${stdout.text()}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('runCli', () => {
  const controllers: AbortController[] = [];
  afterEach(() => {
    for (const controller of controllers.splice(0)) controller.abort();
  });

  function run(argv: string[]) {
    const controller = new AbortController();
    controllers.push(controller);
    const stdout = capture();
    const stderr = capture();
    const running = runCli(argv, { stdout, stderr, signal: controller.signal });
    return { controller, stdout, stderr, running };
  }

  describe('--help', () => {
    it('prints the usage and exits 0 without starting', async () => {
      const { stdout, running } = run(['--help']);
      expect(await running).toBe(0);
      expect(stdout.text()).toBe(CLI_USAGE);
      expect(stdout.text()).toContain('switchboard-emulator [--port N] [--host H] [--key K]');
    });
  });

  describe('bad arguments', () => {
    it('exits 2 on an unknown option, naming it', async () => {
      const { stderr, running } = run(['--verbose']);
      expect(await running).toBe(2);
      expect(stderr.text()).toContain("Unknown option '--verbose'");
    });

    it('exits 2 on a port that is not a number in range', async () => {
      for (const port of ['abc', '70000', '-1', '1.5']) {
        const { stderr, running } = run([`--port=${port}`]);
        expect(await running).toBe(2);
        expect(stderr.text()).toContain('--port must be an integer from 0 to 65535');
      }
    });

    it('exits 2 on an unknown flavour, naming the choices', async () => {
      const { stderr, running } = run(['--flavor', 'other']);
      expect(await running).toBe(2);
      expect(stderr.text()).toContain("--flavor must be primary or gateway, got 'other'");
    });

    it('exits 1 on a port in use, naming the address and why in one line, with no stack', async () => {
      const busy = createServer();
      await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
      try {
        const port = (busy.address() as { port: number }).port;
        const { stdout, stderr, running } = run(['--port', String(port)]);
        expect(await running).toBe(1);
        expect(stdout.text()).toBe('');
        expect(stderr.text()).toBe(
          `switchboard-emulator: cannot listen on 127.0.0.1:${port}: the port is already in use (pick another with --port, or --port 0 for any free one) (EADDRINUSE)\n`,
        );
      } finally {
        await new Promise((resolve) => busy.close(resolve));
      }
    });

    it('warns on stderr when --host is not loopback, and listens all the same', async () => {
      const { stdout, stderr, running } = run(['--host', '0.0.0.0']);
      const url = await waitForUrl(stdout, running);
      expect(url).toMatch(/^http:\/\/0\.0\.0\.0:\d+$/);
      expect(stderr.text()).toBe(
        'switchboard-emulator: warning: --host 0.0.0.0 is not a loopback address: anyone who can reach this machine can call the emulator, with no key (pass --key K to require one)\n',
      );
      for (const host of ['127.0.0.1', 'localhost', '::1']) {
        const quiet = run(['--host', host]);
        await waitForUrl(quiet.stdout, quiet.running);
        expect(quiet.stderr.text(), host).toBe('');
      }
    });

    it('exits 2 on an empty key', async () => {
      const { stderr, running } = run(['--key=']);
      expect(await running).toBe(2);
      expect(stderr.text()).toContain('--key must not be empty');
    });
  });

  describe('running', () => {
    it('prints its URL, serves until the signal aborts, then closes and exits 0', async () => {
      const { controller, stdout, running } = run(['--port', '0']);
      const url = await waitForUrl(stdout, running);
      expect(stdout.text()).toMatch(/^switchboard emulator listening on http:\/\/127\.0\.0\.1:\d+\n$/);
      expect((await request(url, '/models')).status).toBe(200);
      controller.abort();
      expect(await running).toBe(0);
      expect(stdout.text()).toContain('switchboard emulator stopped');
      await expect(fetch(`${url}/models`)).rejects.toThrow(TypeError);
    });

    it('requires the key it was given and never prints it', async () => {
      const key = 'sk-cli-secret-456';
      const { controller, stdout, stderr, running } = run(['--key', key]);
      const url = await waitForUrl(stdout, running);
      expect(stdout.text()).toContain('(API key required)');
      expect((await request(url, '/models')).status).toBe(401);
      expect((await request(url, '/models', 'GET', { authorization: `Bearer ${key}` })).status).toBe(200);
      controller.abort();
      expect(await running).toBe(0);
      expect(stdout.text() + stderr.text()).not.toContain(key);
    });

    it('plays the gateway with --flavor gateway, printing the /api/v1 base address', async () => {
      const { controller, stdout, running } = run(['--flavor', 'gateway']);
      const url = await waitForUrl(stdout, running);
      expect(stdout.text()).toMatch(
        /^switchboard emulator listening on http:\/\/127\.0\.0\.1:\d+\/api\/v1 \(gateway flavour\)\n$/,
      );
      expect((await request(url, '/models')).status).toBe(200);
      expect((await request(url.replace('/api/v1', ''), '/models')).status).toBe(404);
      controller.abort();
      expect(await running).toBe(0);
    });

    it('plays a strict OpenAI-compatible server with --strict-fields: thinking gets a 400', async () => {
      const { controller, stdout, running } = run(['--strict-fields']);
      const url = await waitForUrl(stdout, running);
      expect(stdout.text()).toContain('(strict fields)');
      const response = await fetch(`${url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'primary-flash',
          messages: [{ role: 'user', content: 'hi' }],
          thinking: { type: 'disabled' },
        }),
      });
      expect(response.status).toBe(400);
      expect(await response.text()).toContain('Unrecognized request argument supplied: thinking');
      controller.abort();
      expect(await running).toBe(0);
    });

    it('exits 0 at once when the signal is already aborted', async () => {
      const controller = new AbortController();
      controller.abort();
      const stdout = capture();
      expect(await runCli([], { stdout, signal: controller.signal })).toBe(0);
      expect(stdout.text()).toBe('');
    });
  });
});
