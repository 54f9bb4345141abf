import { readFileSync, writeFileSync } from 'node:fs';
import { relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ChatAdapter, ChatError, type CompleteRequest, OpenAITransport } from '@switchboard/adapter';
import { closeTestEmulators, startTestEmulator } from '@switchboard/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { CassetteMissError, readCassette, recordCassette, replayCassette } from '../src/index.js';
import { cassettePath } from './support/cassette-path.js';

const KEY = 'replay-test-key-00112233';
const ask = (content: string, extra: Partial<CompleteRequest> = {}): CompleteRequest => ({
  model: 'primary-flash',
  messages: [{ role: 'user', content }],
  ...extra,
});

afterEach(closeTestEmulators);

async function recorded(requests: CompleteRequest[], options: { thinking?: boolean; delayMs?: number } = {}) {
  const delay = options.delayMs === undefined ? [] : [{ requests: [1], delayMs: options.delayMs }];
  const emulator = await startTestEmulator({ key: KEY, faults: delay });
  const path = cassettePath();
  const adapter = new ChatAdapter(
    recordCassette(path, new OpenAITransport({ apiKey: KEY, baseUrl: emulator.url }), { apiKey: KEY }),
    { disableThinking: options.thinking !== true },
  );
  const responses = [];
  for (const request of requests) responses.push(await adapter.complete(request));
  return { path, emulator, responses };
}

describe('replayCassette', () => {
  it('replays repeated identical requests in recorded order', async () => {
    // With thinking on, the emulator answers identical requests differently: the order shows.
    const { path, emulator, responses } = await recorded([ask('same'), ask('same'), ask('same')], {
      thinking: true,
    });
    await emulator.close();
    expect(new Set(responses.map((response) => response.reasoning)).size).toBe(3);
    const replay = new ChatAdapter(replayCassette(path), { disableThinking: false });
    for (const response of responses)
      expect((await replay.complete(ask('same'))).reasoning).toBe(response.reasoning);
    const fourth = await replay.complete(ask('same')).catch((error: unknown) => error);
    expect(fourth).toBeInstanceOf(CassetteMissError);
    expect((fourth as Error).message).toContain('recorded 3 time(s) (calls 1, 2, 3), all replayed already');
  });

  it('matches whatever the key order of the messages', async () => {
    const { path, emulator, responses } = await recorded([
      ask('ordered', { messages: [{ role: 'user', content: 'ordered', name: 'dev' }] }),
    ]);
    await emulator.close();
    const replay = new ChatAdapter(replayCassette(path));
    const reordered = await replay.complete(
      ask('x', { messages: [{ name: 'dev', content: 'ordered', role: 'user' }] }),
    );
    expect(reordered.content).toBe(responses[0]?.content);
  });

  it('fails a miss with the nearest recorded request and every difference, sending nothing', async () => {
    const { path, emulator } = await recorded([
      ask('What is the build status of main?'),
      ask('Totally unrelated question about lunch', { jsonObject: true }),
    ]);
    await emulator.close();
    const replay = new ChatAdapter(replayCassette(path));
    const error = await replay
      .complete(ask('What is the build status of dev?', { temperature: 0.5 }))
      .catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(CassetteMissError);
    const miss = error as CassetteMissError;
    expect(miss.kind).toBe('cassette_miss');
    expect(miss.retryable).toBe(false);
    expect(miss.nearestCall).toBe(1);
    expect(miss.differences).toEqual([
      'messages[0].content: recorded "What is the build status of main?", now "What is the build status of dev?"',
      'temperature: recorded 0, now 0.5',
    ]);
    expect(miss.message).toContain('the nearest recording is call 1');
    expect(miss.message).toContain('temperature: recorded 0, now 0.5');
  });

  describe('in a test runner', () => {
    const thisFile = relative(process.cwd(), fileURLToPath(import.meta.url))
      .split(sep)
      .join('/');
    /** The cassette with the calls numbered in `others` marked as made by another test file. */
    const madeElsewhere = (path: string, others: number[]) => {
      const [header, ...lines] = readFileSync(path, 'utf8').trim().split('\n');
      const edited = lines.map((line, index) =>
        others.includes(index + 1)
          ? JSON.stringify({ ...JSON.parse(line), test: 'test/other.test.ts' })
          : line,
      );
      writeFileSync(path, `${[header, ...edited].join('\n')}\n`);
    };
    const asked = ask('What is the build status of dev?');

    it('records which test file made each call, relative to the working directory', async () => {
      const { path, emulator } = await recorded([ask('hello')]);
      await emulator.close();
      expect(thisFile).toBe('test/replay.test.ts');
      expect(readCassette(path).entries.map((entry) => entry.test)).toEqual([thisFile]);
    });

    it("names the nearest recording of the same test file on a miss, not another file's closer prompt", async () => {
      const { path, emulator } = await recorded([
        ask('What is the build status of main?'),
        ask('What is the lint status of main?', { jsonObject: true }),
      ]);
      await emulator.close();
      madeElsewhere(path, [1]);
      const miss = (await new ChatAdapter(replayCassette(path))
        .complete(asked)
        .catch((failure: unknown) => failure)) as CassetteMissError;
      expect(miss).toBeInstanceOf(CassetteMissError);
      expect(miss.nearestCall).toBe(2);
      expect(miss.message).toContain(
        `the nearest recording is call 2 (model "primary-flash", made by "${thisFile}")`,
      );
      expect(miss.differences).toHaveLength(2);
    });

    it("falls back to every file's recordings when the test file recorded none", async () => {
      const { path, emulator } = await recorded([ask('What is the build status of main?')]);
      await emulator.close();
      madeElsewhere(path, [1]);
      const miss = (await new ChatAdapter(replayCassette(path))
        .complete(asked)
        .catch((failure: unknown) => failure)) as CassetteMissError;
      expect(miss.nearestCall).toBe(1);
      expect(miss.message).toContain(
        '(model "primary-flash", made by "test/other.test.ts"), 1 difference(s)',
      );
    });
  });

  it('a cassette of 200s recorded with a key fails a replay told there is no key', async () => {
    const { path, emulator } = await recorded([ask('hello')]);
    await emulator.close();
    const keyless = new ChatAdapter(replayCassette(path, { apiKey: '' }));
    const error = await keyless.complete(ask('hello')).catch((failure: unknown) => failure);
    expect(ChatError.isInstance(error) && error.kind).toBe('cassette_miss');
    expect((error as Error).message).toContain('key: recorded with a key, now without a key');
  });

  it('passes misses through to the real transport in passthrough mode and appends them', async () => {
    const { path, emulator, responses } = await recorded([ask('first')]);
    const live = new OpenAITransport({ apiKey: KEY, baseUrl: emulator.url });
    const replay = new ChatAdapter(
      replayCassette(path, { mode: 'passthrough', transport: live, apiKey: KEY }),
    );
    expect((await replay.complete(ask('first'))).content).toBe(responses[0]?.content);
    expect(emulator.requests).toHaveLength(1);
    const fresh = await replay.complete(ask('second'));
    expect(emulator.requests).toHaveLength(2);
    expect(readCassette(path).entries.map((entry) => entry.call)).toEqual([1, 2]);
    expect(readFileSync(path, 'utf8')).not.toContain(KEY);
    await emulator.close();
    const strict = new ChatAdapter(replayCassette(path));
    await strict.complete(ask('first'));
    expect((await strict.complete(ask('second'))).content).toBe(fresh.content);
  });

  it('waits the recorded delays with recorded timing, and none when fast', async () => {
    const DELAY_MS = 1000;
    const { path, emulator } = await recorded([ask('slow')], { delayMs: DELAY_MS });
    await emulator.close();
    const started = performance.now();
    await new ChatAdapter(replayCassette(path, { timing: 'recorded' })).complete(ask('slow'));
    expect(performance.now() - started).toBeGreaterThanOrEqual(DELAY_MS - 20);
    // Fast replay does not wait the recorded delay: a replay that did would take at least it.
    const fast = performance.now();
    await new ChatAdapter(replayCassette(path)).complete(ask('slow'));
    expect(performance.now() - fast).toBeLessThan(DELAY_MS - 20);
  });

  it('ends a recorded wait at once when the caller aborts, as the live call would', async () => {
    const { path, emulator } = await recorded([ask('slow')], { delayMs: 300 });
    await emulator.close();
    const controller = new AbortController();
    const pending = new ChatAdapter(replayCassette(path, { timing: 'recorded' })).complete(
      ask('slow', { signal: controller.signal }),
    );
    controller.abort();
    await expect(pending).rejects.toMatchObject({ kind: 'aborted' });
  });

  it('replays a call that failed after its retries: the same attempts told to observers, then the same error', async () => {
    const emulator = await startTestEmulator({ key: KEY, faults: [{ status: 503 }] });
    const path = cassettePath();
    const live = new OpenAITransport({
      apiKey: KEY,
      baseUrl: emulator.url,
      maxAttempts: 2,
      retryBackoffSeconds: 0,
    });
    const outcomes = async (adapter: ChatAdapter) => {
      const records: unknown[] = [];
      adapter.observe({ afterCall: (record) => records.push([record.attempts, record.error]) });
      const error = await adapter.complete(ask('down')).catch((failure: unknown) => failure);
      return {
        records,
        kind: (error as ChatError).kind,
        status: (error as ChatError).status,
        message: (error as Error).message,
      };
    };
    const recordedOutcome = await outcomes(new ChatAdapter(recordCassette(path, live, { apiKey: KEY })));
    await emulator.close();
    expect(recordedOutcome.records).toEqual([[2, { kind: 'server', status: 503, degradation: false }]]);
    expect(await outcomes(new ChatAdapter(replayCassette(path)))).toEqual(recordedOutcome);
  });
});
