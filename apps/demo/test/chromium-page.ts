import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';

/** The Chromium the tests open pages in: Debian's package (`.ci/run` installs it when missing). */
const CHROMIUM_PATH = '/usr/bin/chromium';

/** What opening a page in headless Chromium saw. */
export interface OpenedPage {
  /** Every URL the page requested, its own included. */
  readonly requests: readonly string[];
  /** What `expression` evaluated to in the loaded page. */
  readonly value: unknown;
  /** A PNG screenshot of the whole page. */
  readonly screenshot: Buffer;
}

/**
 * Opens `url` in real headless Chromium, driven over the DevTools protocol on a
 * pipe (`--remote-debugging-pipe`: no port, no extra package), records every
 * request, evaluates `expression` once the page has loaded and takes a screenshot.
 */
export async function openInChromium(url: string, expression: string): Promise<OpenedPage> {
  const profile = mkdtempSync(join(tmpdir(), 'switchboard-chromium-'));
  const browser = spawn(
    CHROMIUM_PATH,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--user-data-dir=${profile}`,
      '--remote-debugging-pipe',
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] },
  );
  let stderr = '';
  browser.stderr?.on('data', (data: Buffer) => {
    stderr += data.toString();
  });
  const protocol = new DevToolsPipe(browser);
  try {
    const exited = new Promise<never>((_, reject) =>
      browser.once('exit', (code) => reject(new Error(`chromium exited (${code}): ${stderr.slice(-2000)}`))),
    );
    return await Promise.race([exited, drive(protocol, url, expression)]);
  } finally {
    if (browser.exitCode === null && browser.signalCode === null) {
      const ended = new Promise((resolve) => browser.once('exit', resolve));
      browser.kill('SIGKILL');
      await ended;
    }
    rmSync(profile, { recursive: true, force: true, maxRetries: 5 });
  }
}

async function drive(protocol: DevToolsPipe, url: string, expression: string): Promise<OpenedPage> {
  const { targetId } = (await protocol.send('Target.createTarget', { url: 'about:blank' })) as {
    targetId: string;
  };
  const { sessionId } = (await protocol.send('Target.attachToTarget', { targetId, flatten: true })) as {
    sessionId: string;
  };
  const requests: string[] = [];
  protocol.on('Network.requestWillBeSent', (params) =>
    requests.push((params as { request: { url: string } }).request.url),
  );
  await protocol.send('Network.enable', {}, sessionId);
  await protocol.send('Page.enable', {}, sessionId);
  const loaded = protocol.once('Page.loadEventFired');
  await protocol.send('Page.navigate', { url }, sessionId);
  await loaded;
  const evaluated = (await protocol.send(
    'Runtime.evaluate',
    { expression, returnByValue: true },
    sessionId,
  )) as {
    result: { value: unknown };
  };
  const { data } = (await protocol.send(
    'Page.captureScreenshot',
    { format: 'png', captureBeyondViewport: true },
    sessionId,
  )) as {
    data: string;
  };
  await protocol.send('Browser.close').catch(() => {});
  return { requests, value: evaluated.result.value, screenshot: Buffer.from(data, 'base64') };
}

/** The DevTools protocol over Chromium's pipe: JSON messages ended by a NUL byte, fd 3 in, fd 4 out. */
class DevToolsPipe {
  readonly #input: Writable;
  #next = 1;
  #buffer = '';
  readonly #pending = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (error: Error) => void }
  >();
  readonly #listeners = new Map<string, Array<(params: unknown) => void>>();

  constructor(browser: ChildProcess) {
    this.#input = browser.stdio[3] as Writable;
    const output = browser.stdio[4] as Readable;
    output.on('data', (data: Buffer) => this.#receive(data.toString('utf8')));
  }

  send(method: string, params: object = {}, sessionId?: string): Promise<unknown> {
    const id = this.#next++;
    const message = JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) });
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#input.write(`${message}\0`);
    });
  }

  on(method: string, listener: (params: unknown) => void): void {
    this.#listeners.set(method, [...(this.#listeners.get(method) ?? []), listener]);
  }

  once(method: string): Promise<unknown> {
    return new Promise((resolve) => {
      let done = false;
      this.on(method, (params) => {
        if (done) return;
        done = true;
        resolve(params);
      });
    });
  }

  #receive(text: string): void {
    this.#buffer += text;
    for (let end = this.#buffer.indexOf('\0'); end !== -1; end = this.#buffer.indexOf('\0')) {
      const message = JSON.parse(this.#buffer.slice(0, end)) as {
        id?: number;
        method?: string;
        params?: unknown;
        result?: unknown;
        error?: { message: string };
      };
      this.#buffer = this.#buffer.slice(end + 1);
      if (message.id !== undefined) {
        const pending = this.#pending.get(message.id);
        this.#pending.delete(message.id);
        if (message.error) pending?.reject(new Error(message.error.message));
        else pending?.resolve(message.result);
      } else if (message.method !== undefined) {
        for (const listener of this.#listeners.get(message.method) ?? []) listener(message.params);
      }
    }
  }
}
