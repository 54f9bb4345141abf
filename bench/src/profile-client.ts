// Runs one client's calls back to back against the emulator (in its own process, so
// the profile holds the client's side only) and profiles them with V8's sampling
// profiler (`node:inspector`, the profiler `node --cpu-prof` uses), started after
// a warm-up of STEADY_AFTER calls, so that loading, compiling and V8's climb to optimized code stay out of it. Started by
// src/profile.ts, which summarizes the profile.
//
// Usage: node --import tsx src/profile-client.ts <out.cpuprofile> <interval µs> <scenario> [calls] [concurrency] [small|large]
// where <scenario> is a client of src/clients.ts (complete() calls) or
// `adapter-stream` / `openai-stream` (1,000-event streams from the emulator, read to their end)
// or `adapter-sse` / `openai-sse` (one stream of 100,000 ~140-byte events from memory).
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { CLIENT_IDS, type ClientId, createClients } from './clients.js';
import { startEmulatorProcess } from './emulator-client.js';
import { runBatch } from './measure.js';
import { STEADY_AFTER } from './settings.js';
import { memoryFetch, sseBody } from './sse-body.js';
import { adapterStream, type StreamRun, sdkStream } from './stream-clients.js';

/** The stream scenarios, beside the clients' ids. */
const STREAM_SCENARIOS = ['adapter-stream', 'openai-stream', 'adapter-sse', 'openai-sse'] as const;

const [out, interval, id = 'adapter', calls = '4000', concurrency = '1', size = 'small'] =
  process.argv.slice(2);
if (out === undefined || interval === undefined)
  throw new Error('usage: <out.cpuprofile> <interval µs> <scenario> ...');
const session = new Session();
session.connect();

/** Runs `work` under the sampling profiler and writes the profile to `out`. */
async function profiled(work: () => Promise<void>): Promise<void> {
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: Number(interval) });
  await session.post('Profiler.start');
  await work();
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(out as string, JSON.stringify(profile));
}
const streamed = (STREAM_SCENARIOS as readonly string[]).includes(id);
if (!streamed && !CLIENT_IDS.includes(id as ClientId)) {
  throw new Error(`scenario must be one of ${[...CLIENT_IDS, ...STREAM_SCENARIOS].join(', ')}`);
}
const emulator = await startEmulatorProcess();
const count = Number(calls);
try {
  if (streamed) {
    // -stream: 1,000-event streams from the emulator; -sse: 100,000 events of ~140 bytes from memory.
    const fetcher = id.endsWith('-sse') ? memoryFetch(sseBody(100_000)) : undefined;
    const run: StreamRun = id.startsWith('adapter-')
      ? adapterStream(emulator.streamUrl, fetcher)
      : sdkStream(emulator.streamUrl, fetcher);
    for (let index = 0; index < (fetcher ? 2 : 20); index += 1) await run();
    const before = process.cpuUsage();
    const started = performance.now();
    await profiled(async () => {
      for (let index = 0; index < count; index += 1) await run();
    });
    const cpu = process.cpuUsage(before);
    console.log(
      `${id}: ${((cpu.user + cpu.system) / count) | 0} µs CPU per stream, ${((performance.now() - started) / count).toFixed(3)} ms wall`,
    );
  } else {
    const url = size === 'large' ? emulator.largeUrl : emulator.smallUrl;
    const [client] = await createClients(url, [id as ClientId]);
    if (!client) throw new Error(`no client ${id}`);
    try {
      // Profiled in its steady state, as bench:speed measures it.
      await runBatch(client, STEADY_AFTER, 1);
      let batch = { cpuMicros: 0, wallMs: 0 };
      await profiled(async () => {
        batch = await runBatch(client, count, Number(concurrency));
      });
      console.log(
        `${id}: ${(batch.cpuMicros / count) | 0} µs CPU per call, ${(batch.wallMs / count).toFixed(3)} ms wall`,
      );
    } finally {
      await client.close?.();
    }
  }
} finally {
  await emulator.close();
  session.disconnect();
}
