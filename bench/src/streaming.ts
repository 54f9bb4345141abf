// Streaming (issue 32's rows), the emulator and the SSE server in child processes
// so that this process's CPU is the clients' only. Not part of the tests.
//
// 1. The client's CPU per 1,000-event stream through ChatAdapter.stream (over
//    FetchTransport) against the openai SDK's own `for await` over
//    `create({ stream: true })`, with a second SDK client as the A/A control, in
//    interleaved rounds; and the time from the first byte of a stream's body to
//    its first delta (a `fetch` that notes the first chunk), in the same rounds.
// 2. Throughput: one long stream of ~140-byte chunk events through
//    ChatAdapter.stream, from a loopback server (end to end) and from memory (the
//    client alone), against the SDK on the same bytes, and against the floor of issue 43:
//    eventsource-parser + JSON.parse per event over the same bytes, in the same rounds.
// 3. SSE linearity: the SSE parser's CPU for one 4 MiB event pushed 1 byte at a
//    time, against one 1 MiB event (linear: 4x; target at most 6x).
//
// Usage (from the root): pnpm --filter @switchboard/bench bench:streaming [--quick] [--before <dist/index.js>]
// --before adds another build of the adapter as a client of its own (copy packages/adapter/dist/index.js
// somewhere under bench/ before a change, so that its imports resolve): before and after in the same rounds.
import { type ChildProcess, fork } from 'node:child_process';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { SseParser } from '../../packages/adapter/src/sse-parser.js';
import { startEmulatorProcess } from './emulator-client.js';
import { machineInfo } from './machine.js';
import { median, roundOrder } from './measure.js';
import { STREAM_ANSWER_TOKENS } from './settings.js';
import { memoryFetch, sseBody } from './sse-body.js';
import {
  type AdapterModule,
  adapterStream,
  parserStream,
  type StreamRun,
  sdkStream,
} from './stream-clients.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((argument) => argument !== '--'),
  options: { quick: { type: 'boolean', default: false }, before: { type: 'string' } },
});
const quick = values.quick === true;
const ROUNDS = quick ? 2 : 7;
const STREAMS = quick ? 10 : 40;
const THROUGHPUT_EVENTS = quick ? 30_000 : 100_000;
const THROUGHPUT_ROUNDS = quick ? 2 : 5;
const collectGarbage = (globalThis as { gc?: () => void }).gc;

type Kind = 'sdk' | 'sdk-aa' | 'adapter' | 'adapter-before' | 'parser';
const before: AdapterModule | null =
  values.before === undefined ? null : ((await import(resolve(values.before))) as AdapterModule);
const KINDS: readonly Kind[] =
  before === null ? ['sdk', 'sdk-aa', 'adapter'] : ['sdk', 'sdk-aa', 'adapter-before', 'adapter'];
const LABELS: Record<Kind, string> = {
  sdk: 'openai SDK, `for await` over `create({ stream: true })`',
  'sdk-aa': 'openai SDK, a second client (A/A control)',
  adapter: '`ChatAdapter.stream` over `FetchTransport`',
  'adapter-before': '`ChatAdapter.stream`, the `--before` build',
  parser: '`eventsource-parser` + `JSON.parse` per event (the floor of issue 43)',
};
// The throughput rows add the parsing floor, measured in the same rounds.
const THROUGHPUT_KINDS: readonly Kind[] = [...KINDS, 'parser'];
const makeRun = (kind: Kind, url: string, fetcher?: typeof fetch, onDelta?: () => void): StreamRun => {
  if (kind === 'adapter') return adapterStream(url, fetcher, onDelta);
  if (kind === 'adapter-before' && before !== null) return adapterStream(url, fetcher, onDelta, before);
  if (kind === 'parser') return parserStream(url, fetcher);
  return sdkStream(url, fetcher, onDelta);
};
const byKind = <T>(make: () => T): Record<Kind, T> => ({
  sdk: make(),
  'sdk-aa': make(),
  adapter: make(),
  'adapter-before': make(),
  parser: make(),
});

/** A `fetch` that notes when each reply's body yields its first bytes. */
function firstByteFetch(marks: number[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (response.body === null) return response;
    let first = true;
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          if (first) {
            first = false;
            marks.push(performance.now());
          }
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(body, { status: response.status, headers: response.headers });
  };
}

/** CPU µs of this process per stream over `count` sequential streams. */
async function cpuPerStream(run: StreamRun, count: number): Promise<number> {
  collectGarbage?.();
  const before = process.cpuUsage();
  let chars = 0;
  for (let index = 0; index < count; index += 1) chars += await run();
  const spent = process.cpuUsage(before);
  if (chars === 0) throw new Error('no content arrived');
  return (spent.user + spent.system) / count;
}

/** Microseconds from the first byte of each body to its first content delta, over `count` streams. */
async function firstDeltaGaps(kind: Kind, url: string, count: number): Promise<number[]> {
  const marks: number[] = [];
  const gaps: number[] = [];
  let seen = false;
  const run = makeRun(kind, url, firstByteFetch(marks), () => {
    if (seen) return;
    seen = true;
    gaps.push((performance.now() - (marks.at(-1) ?? Number.NaN)) * 1000);
  });
  for (let index = 0; index < count; index += 1) {
    seen = false;
    await run();
  }
  return gaps;
}

/** One whole stream: wall ms and CPU ms of this process. */
async function timedStream(run: StreamRun): Promise<{ wallMs: number; cpuMs: number }> {
  collectGarbage?.();
  const before = process.cpuUsage();
  const started = performance.now();
  const chars = await run();
  const wallMs = performance.now() - started;
  const spent = process.cpuUsage(before);
  if (chars === 0) throw new Error('no content arrived');
  return { wallMs, cpuMs: (spent.user + spent.system) / 1000 };
}

/** CPU ms the SSE parser spends on one event of `bytes` bytes of data pushed 1 byte at a time. */
function parserCpuMs(bytes: number): number {
  const event = Buffer.from(`data: ${'a'.repeat(bytes)}\n\n`, 'utf8');
  const parser = new SseParser(bytes + 1024);
  collectGarbage?.();
  const before = process.cpuUsage();
  let events = 0;
  for (let index = 0; index < event.length; index += 1) {
    events += parser.push(event.subarray(index, index + 1)).length;
  }
  const spent = process.cpuUsage(before);
  if (events !== 1) throw new Error(`expected one event, got ${events}`);
  return (spent.user + spent.system) / 1000;
}

async function startSseServer(events: number): Promise<{ url: string; bytes: number; child: ChildProcess }> {
  const child = fork(fileURLToPath(new URL('./sse-server-process.ts', import.meta.url)), [String(events)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await new Promise<{ url: string; bytes: number }>((resolve, reject) => {
    child.once('message', (message) => resolve(message as { url: string; bytes: number }));
    child.once('exit', (code) => reject(new Error(`the SSE server exited (code ${code})`)));
  });
  return { ...ready, child };
}

const fixed = (value: number, digits = 0) =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const ratioOf = (mine: readonly number[], theirs: readonly number[]) =>
  median(mine.map((value, round) => value / (theirs[round] ?? Number.NaN)));
const load = () => (loadavg()[0] ?? 0).toFixed(1);
const targets: string[][] = [];

const machine = machineInfo();
console.log(`machine: ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}; load average ${load()}`);

// 1. CPU per 1,000-event stream and first byte -> first delta.
const emulator = await startEmulatorProcess();
try {
  const url = emulator.streamUrl;
  const runs = Object.fromEntries(KINDS.map((kind) => [kind, makeRun(kind, url)])) as Record<Kind, StreamRun>;
  const events = await (async () => {
    let count = 0;
    await makeRun('adapter', url, undefined, () => {
      count += 1;
    })();
    return count;
  })();
  for (const kind of KINDS) await cpuPerStream(runs[kind], Math.ceil(STREAMS / 4));
  const cpu = byKind<number[]>(() => []);
  const first = byKind<number[]>(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const kind of roundOrder(KINDS, round)) cpu[kind].push(await cpuPerStream(runs[kind], STREAMS));
    for (const kind of roundOrder(KINDS, round)) {
      first[kind].push(median(await firstDeltaGaps(kind, url, Math.ceil(STREAMS / 2))));
    }
  }
  const loadAfter = load();
  console.log(
    [
      '',
      `### Streams of ${events} content deltas (${STREAM_ANSWER_TOKENS} tokens) from the emulator, ${STREAMS} streams x ${ROUNDS} rounds, sequential (load average ${loadAfter} at the end)`,
      '',
      '| client | CPU µs/stream | CPU µs/event | CPU vs SDK (median of rounds) | first byte -> first delta, µs (median of rounds) | vs SDK |',
      '|---|---:|---:|---:|---:|---:|',
      ...KINDS.map(
        (kind) =>
          `| ${LABELS[kind]} | ${fixed(median(cpu[kind]))} | ${fixed(median(cpu[kind]) / events, 2)} | ${ratioOf(cpu[kind], cpu.sdk).toFixed(3)}x | ${fixed(median(first[kind]))} | ${ratioOf(first[kind], first.sdk).toFixed(2)}x |`,
      ),
    ].join('\n'),
  );
  const cpuRatio = ratioOf(cpu.adapter, cpu.sdk);
  const firstRatio = ratioOf(first.adapter, first.sdk);
  targets.push(
    [
      'CPU per 1,000-event stream vs the SDK',
      '<= 0.55x',
      `${cpuRatio.toFixed(3)}x (A/A ${ratioOf(cpu['sdk-aa'], cpu.sdk).toFixed(3)}x)`,
      cpuRatio <= 0.55 ? 'yes' : 'no',
    ],
    [
      'first byte -> first delta vs the SDK',
      '<= 1.00x',
      `${firstRatio.toFixed(2)}x (A/A ${ratioOf(first['sdk-aa'], first.sdk).toFixed(2)}x)`,
      firstRatio <= 1 ? 'yes' : 'no',
    ],
    [
      'first byte -> first delta vs the SDK (issue 43)',
      '<= 0.80x',
      `${firstRatio.toFixed(2)}x`,
      firstRatio <= 0.8 ? 'yes' : 'no',
    ],
  );
} finally {
  await emulator.close();
}

// 2. Throughput of ~140-byte chunk events.
const server = await startSseServer(THROUGHPUT_EVENTS);
try {
  const memory = memoryFetch(sseBody(THROUGHPUT_EVENTS));
  const sources = { loopback: undefined, memory } as const;
  const rows: string[] = [];
  for (const [source, fetcher] of Object.entries(sources)) {
    const runs = Object.fromEntries(
      THROUGHPUT_KINDS.map((kind) => [kind, makeRun(kind, server.url, fetcher)]),
    ) as Record<Kind, StreamRun>;
    for (const kind of THROUGHPUT_KINDS) await timedStream(runs[kind]);
    const wall = byKind<number[]>(() => []);
    const cpuMs = byKind<number[]>(() => []);
    for (let round = 0; round < THROUGHPUT_ROUNDS; round++) {
      for (const kind of roundOrder(THROUGHPUT_KINDS, round)) {
        const timed = await timedStream(runs[kind]);
        wall[kind].push(timed.wallMs);
        cpuMs[kind].push(timed.cpuMs);
      }
    }
    for (const kind of THROUGHPUT_KINDS) {
      const megabytesPerSecond = server.bytes / 1e6 / (median(wall[kind]) / 1000);
      rows.push(
        `| ${source === 'loopback' ? 'loopback HTTP (end to end)' : 'from memory (client alone)'} | ${LABELS[kind]} | ${fixed(megabytesPerSecond, 1)} | ${fixed(THROUGHPUT_EVENTS / (median(wall[kind]) / 1000))} | ${fixed(median(cpuMs[kind]))} | ${fixed(server.bytes / 1e3 / median(cpuMs[kind]), 1)} | ${ratioOf(wall[kind], wall.sdk).toFixed(3)}x |`,
      );
      if (kind === 'adapter' && source === 'loopback') {
        targets.push([
          '~140-byte chunk events through ChatAdapter.stream, loopback',
          '>= 50 MB/s',
          `${fixed(megabytesPerSecond, 1)} MB/s`,
          megabytesPerSecond >= 50 ? 'yes' : 'no',
        ]);
      }
      if (kind === 'adapter') {
        // Throughput over the floor's: its time over ours, round by round.
        const share = ratioOf(wall.parser, wall.adapter);
        targets.push([
          `ChatAdapter.stream throughput vs eventsource-parser + JSON.parse, ${source === 'loopback' ? 'loopback' : 'from memory'} (issue 43)`,
          '>= 0.8x',
          `${share.toFixed(2)}x`,
          share >= 0.8 ? 'yes' : 'no',
        ]);
      }
    }
  }
  console.log(
    [
      '',
      `### Throughput: one stream of ${fixed(THROUGHPUT_EVENTS)} content events (${fixed(server.bytes / THROUGHPUT_EVENTS, 1)} bytes each on average, ${fixed(server.bytes / 1e6, 1)} MB), ${THROUGHPUT_ROUNDS} rounds, medians (load average ${load()} at the end)`,
      '',
      '| source | client | MB/s | events/s | CPU ms/stream | MB per CPU second | wall vs SDK |',
      '|---|---|---:|---:|---:|---:|---:|',
      ...rows,
    ].join('\n'),
  );
} finally {
  server.child.disconnect();
}

// 3. SSE linearity.
parserCpuMs(64 * 1024);
const small: number[] = [];
const large: number[] = [];
for (let round = 0; round < 3; round++) {
  small.push(parserCpuMs(1024 * 1024));
  large.push(parserCpuMs(4 * 1024 * 1024));
}
const linearity = ratioOf(large, small);
console.log(
  [
    '',
    `### SSE parser, one event pushed 1 byte at a time (3 rounds, medians; load average ${load()} at the end)`,
    '',
    '| event | CPU ms |',
    '|---|---:|',
    `| 1 MiB | ${fixed(median(small), 1)} |`,
    `| 4 MiB | ${fixed(median(large), 1)} (${linearity.toFixed(2)}x; linear is 4x) |`,
  ].join('\n'),
);
targets.push([
  'SSE: a 4 MiB event 1 byte at a time vs a 1 MiB one',
  '<= 6x CPU',
  `${linearity.toFixed(2)}x`,
  linearity <= 6 ? 'yes' : 'no',
]);

console.log(
  [
    '',
    '### Targets (issues 32 and 43)',
    '',
    '| row | target | measured | met |',
    '|---|---|---:|---|',
    ...targets.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n'),
);
