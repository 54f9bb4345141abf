// Recording one long stream (issue 40 §6): the wall time from the call to the end of
// its stream (the last event in the caller's hands, the recording written), read
// through ChatAdapter.stream over OpenAITransport from a loopback SSE server (a child
// process sending a precomputed body as fast as the socket takes it), without and with
// recordCassette, and this process's CPU over the same span; then `examineCassette`
// (what `switchboard cassette check` runs) on each recording. Both must grow linearly
// with the events; the target is recording within 2x of reading.
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ChatAdapter, type ChatTransport, OpenAITransport } from '@switchboard/adapter';
import { examineCassette, recordCassette } from '@switchboard/cassette';
import { median } from './measure.js';
import { BENCH_API_KEY, BENCH_MESSAGES, BENCH_MODEL } from './settings.js';

/** The target: a recorded stream reaches its last delta within this many times the plain read's time. */
const TARGET_RATIO = 2;

interface StreamServer {
  readonly url: string;
  readonly bytes: number;
  readonly child: ChildProcess;
}

/** Where a stream comes from: a precomputed body sent as fast as the socket takes it, or the emulator making its events. */
type Source = 'sse' | 'emulator';

async function startServer(source: Source, events: number): Promise<StreamServer> {
  const script = source === 'sse' ? './sse-server-process.ts' : './stream-emulator-process.ts';
  const child = fork(fileURLToPath(new URL(script, import.meta.url)), [String(events)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await new Promise<{ url: string; bytes: number }>((resolve, reject) => {
    child.once('message', (message) => resolve(message as { url: string; bytes: number }));
    child.once('exit', (code) => reject(new Error(`the SSE server exited (code ${code})`)));
  });
  return { ...ready, child };
}

/**
 * Milliseconds from the call to the end of its stream (its last event in the caller's hands, the
 * recording written), and this process's CPU milliseconds over the same span; checks the count.
 */
async function timedStream(transport: ChatTransport, events: number): Promise<{ wall: number; cpu: number }> {
  const adapter = new ChatAdapter(transport);
  const cpu = process.cpuUsage();
  const started = performance.now();
  const stream = adapter.stream({ model: BENCH_MODEL, messages: BENCH_MESSAGES });
  let deltas = 0;
  for await (const delta of stream) if (delta.type === 'content') deltas += 1;
  const wall = performance.now() - started;
  const spent = process.cpuUsage(cpu);
  await stream.response;
  if (deltas !== events) throw new Error(`expected ${events} content deltas, got ${deltas}`);
  return { wall, cpu: (spent.user + spent.system) / 1000 };
}

/** One row: median read, record and check times over `rounds`, the record runs interleaved with the reads. */
async function measure(source: Source, events: number, rounds: number) {
  const server = await startServer(source, events);
  const folder = mkdtempSync(join(tmpdir(), 'switchboard-bench-cassette-stream-'));
  try {
    const live = new OpenAITransport({ apiKey: BENCH_API_KEY, baseUrl: server.url });
    // Warm-up: the connection, and both paths compiled.
    await timedStream(live, events);
    await timedStream(
      recordCassette(join(folder, 'warm-up.jsonl'), live, { apiKey: BENCH_API_KEY, env: {} }),
      events,
    );
    const read: Array<{ wall: number; cpu: number }> = [];
    const record: Array<{ wall: number; cpu: number }> = [];
    const check: number[] = [];
    let bytes = 0;
    for (let round = 0; round < rounds; round += 1) {
      const path = join(folder, `round-${round}.cassette.jsonl`);
      const recorder = recordCassette(path, live, { apiKey: BENCH_API_KEY, run: `round-${round}`, env: {} });
      // Alternate which goes first, so neither always runs on a warmer (or busier) machine.
      if (round % 2 === 0) {
        read.push(await timedStream(live, events));
        record.push(await timedStream(recorder, events));
      } else {
        record.push(await timedStream(recorder, events));
        read.push(await timedStream(live, events));
      }
      const started = performance.now();
      const { problems, summary } = examineCassette(path, { keys: [BENCH_API_KEY] });
      check.push(performance.now() - started);
      if (problems.length > 0 || summary.calls !== 1) {
        throw new Error(`the recording did not check clean: ${JSON.stringify(problems.slice(0, 3))}`);
      }
      bytes = statSync(path).size;
      rmSync(path);
    }
    // The median of each round's own ratio: a change in the machine's load between rounds cancels.
    const ratio = (pick: (time: { wall: number; cpu: number }) => number) =>
      median(record.map((time, round) => pick(time) / pick(read[round] as { wall: number; cpu: number })));
    return {
      source,
      events,
      wireBytes: server.bytes,
      cassetteBytes: bytes,
      readMs: median(read.map((time) => time.wall)),
      recordMs: median(record.map((time) => time.wall)),
      readCpuMs: median(read.map((time) => time.cpu)),
      recordCpuMs: median(record.map((time) => time.cpu)),
      checkMs: median(check),
      ratio: ratio((time) => time.wall),
      cpuRatio: ratio((time) => time.cpu),
    };
  } finally {
    server.child.disconnect();
    rmSync(folder, { recursive: true, force: true });
  }
}

const fixed = (value: number, digits = 0) =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/**
 * Measures each size in `sizes` from the loopback SSE server, and each of `emulatorSizes` from the
 * emulator, and prints the table with the linearity of the largest SSE row against the smallest.
 */
export async function benchStreamRecording(
  sizes: readonly number[],
  emulatorSizes: readonly number[],
  rounds: number,
): Promise<void> {
  const rows = [];
  for (const events of sizes) rows.push(await measure('sse', events, rounds));
  for (const events of emulatorSizes) rows.push(await measure('emulator', events, rounds));
  const label = {
    sse: 'precomputed body, as fast as the socket takes it',
    emulator: 'the emulator, making its events',
  };
  const lines = [
    '',
    `## Recording one long stream (read through ChatAdapter.stream over loopback, ${rounds} rounds, medians; load average ${(loadavg()[0] ?? 0).toFixed(1)} at the end)`,
    '',
    '| source | events | read, ms | recorded, ms | recorded ÷ read | CPU read / recorded, ms | CPU ratio | cassette, MB | check, ms |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (row) =>
        `| ${label[row.source]} | ${fixed(row.events)} | ${fixed(row.readMs)} | ${fixed(row.recordMs)} | ${row.ratio.toFixed(2)}x | ${fixed(row.readCpuMs)} / ${fixed(row.recordCpuMs)} | ${row.cpuRatio.toFixed(2)}x | ${fixed(row.cassetteBytes / 1e6, 1)} | ${fixed(row.checkMs)} |`,
    ),
  ];
  const sse = rows.filter((row) => row.source === 'sse');
  const first = sse[0];
  const last = sse.at(-1);
  if (first !== undefined && last !== undefined && last !== first) {
    const scale = last.events / first.events;
    lines.push(
      '',
      `${fixed(scale)}x the events: recording took ${(last.recordMs / first.recordMs).toFixed(1)}x, the check ${(last.checkMs / first.checkMs).toFixed(1)}x, reading ${(last.readMs / first.readMs).toFixed(1)}x (linear is ${fixed(scale)}x).`,
    );
  }
  for (const row of rows) {
    lines.push(
      `Target, ${fixed(row.events)} events from ${row.source === 'sse' ? 'the precomputed body' : 'the emulator'}: recorded within ${TARGET_RATIO}x of reading: ${row.ratio <= TARGET_RATIO ? 'met' : '**not met**'} (${row.ratio.toFixed(2)}x).`,
    );
  }
  console.log(lines.join('\n'));
}
