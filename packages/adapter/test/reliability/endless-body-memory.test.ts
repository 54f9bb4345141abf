import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAITransport, type TransportRequest } from '../../src/index.js';
import { type EmulatorProcess, startEmulatorProcess } from '../support/emulator-process.js';
import { failureOf } from '../support/failure-of.js';

// Issue 10, observation 1: an endless body grew the process by about 400 MB/s. With the reply
// caps, however much the emulator streams, the process keeps a small bound: here far more than
// the bound is streamed (each bad_reply naming the cap proves more than the cap arrived), and the
// growth of resident memory and of array buffers, sampled throughout, stays under 64 MB. The
// emulator runs in a process of its own, so the memory sampled here is the client's alone.

const KEY = 'reliability-memory-key-90d2';
const BOUND = 64 * 1024 * 1024;
const ROUNDS = 34;
// Each round makes two calls: an endless 200 (an odd request number), then an endless 500.
const numbered = (parity: number) =>
  Array.from({ length: 2 * ROUNDS }, (_, index) => index + 1).filter((number) => number % 2 === parity);
let emulator: EmulatorProcess;

beforeAll(async () => {
  emulator = await startEmulatorProcess({
    key: KEY,
    faults: [
      { endlessBody: true, requests: numbered(1) },
      { endlessBody: true, status: 500, requests: numbered(0) },
    ],
  });
});

afterAll(() => emulator?.close());
const request: TransportRequest = {
  model: 'primary-flash',
  messages: [{ role: 'user', content: 'Stream me everything.' }],
  tools: undefined,
  timeoutSeconds: 60,
  extraBody: {},
};

/** Runs `work` while sampling memory; the largest growth over the start of rss and of array buffers. */
async function peakGrowth(work: () => Promise<void>): Promise<{ rss: number; arrayBuffers: number }> {
  const start = process.memoryUsage();
  const peak = { rss: 0, arrayBuffers: 0 };
  const sample = (): void => {
    const now = process.memoryUsage();
    peak.rss = Math.max(peak.rss, now.rss - start.rss);
    peak.arrayBuffers = Math.max(peak.arrayBuffers, now.arrayBuffers - start.arrayBuffers);
  };
  const sampler = setInterval(sample, 5);
  try {
    await work();
  } finally {
    clearInterval(sampler);
    sample();
  }
  return peak;
}

describe('OpenAITransport reading endless bodies (issue 10.1)', () => {
  it('keeps memory growth under 64 MB while the emulator streams far more, success and error bodies', async () => {
    // A 4 MiB cap (the default is 16 MiB), so that the process's own churn stays well apart from the bound.
    const transport = new OpenAITransport({
      apiKey: KEY,
      baseUrl: emulator.url,
      maxAttempts: 1,
      maxReplyBytes: 4 * 1024 * 1024,
    });
    const round = async (): Promise<void> => {
      const error = await failureOf(transport.completeChatRaw(request));
      expect(error.message).toContain('passed the 4 MiB cap');
      expect((await failureOf(transport.completeChatRaw(request))).kind).toBe('server');
    };
    // Warm up first (code loaded and compiled, pools and buffers allocated): that is not growth.
    await round();
    await round();
    let streamed = 0;
    const growth = await peakGrowth(async () => {
      for (let call = 0; call < ROUNDS - 2; call += 1) {
        await round();
        streamed += 4 * 1024 * 1024;
      }
    });
    expect(streamed).toBeGreaterThanOrEqual(2 * BOUND);
    expect(growth.arrayBuffers).toBeLessThan(BOUND);
    expect(growth.rss).toBeLessThan(BOUND);
  }, 120_000);
});
