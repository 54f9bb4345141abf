// Cassettes: what recording costs per call over the live call, how fast a strict
// replay answers, and how big a cassette grows per call; then one long stream recorded
// against reading it (src/cassette-stream.ts). Prints markdown. Not part of the tests.
//
// Usage (from the root): pnpm --filter @switchboard/bench bench:cassette [--calls N]
//   [--events 10000,100000] [--emulator-events 10000,50000] [--rounds 5]
// (the emulator's events are ~250 bytes: 50,000 of them are most of a stream's 16 MiB cap)
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ChatAdapter, type ChatTransport, type CompleteRequest, OpenAITransport } from '@switchboard/adapter';
import { recordCassette, replayCassette } from '@switchboard/cassette';
import { startEmulator } from '@switchboard/emulator';
import { benchStreamRecording } from './cassette-stream.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((argument) => argument !== '--'),
  options: {
    calls: { type: 'string', default: '1000' },
    events: { type: 'string', default: '10000,100000' },
    'emulator-events': { type: 'string', default: '10000,50000' },
    rounds: { type: 'string', default: '5' },
  },
});
const calls = Number(values.calls);
if (!Number.isInteger(calls) || calls < 1) throw new RangeError('--calls must be a positive integer');
const streamSizes = values.events.split(',').map(Number);
if (!streamSizes.every((size) => Number.isInteger(size) && size > 0)) {
  throw new RangeError('--events must be positive integers separated by commas');
}
const emulatorSizes = values['emulator-events'].split(',').filter(Boolean).map(Number);
if (!emulatorSizes.every((size) => Number.isInteger(size) && size > 0)) {
  throw new RangeError('--emulator-events must be positive integers separated by commas (or empty)');
}
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1) throw new RangeError('--rounds must be a positive integer');

const KEY = 'bench-key-0123456789abcdef';
const request = (index: number): CompleteRequest => ({
  model: 'primary-flash',
  messages: [
    { role: 'system', content: 'You review build scripts for unsafe shell use.' },
    { role: 'user', content: `Question ${index}: is line ${index} of scripts/build.sh safe to run?` },
  ],
});

async function timed(transport: ChatTransport): Promise<number> {
  const adapter = new ChatAdapter(transport);
  const started = performance.now();
  for (let index = 0; index < calls; index += 1) await adapter.complete(request(index));
  return (performance.now() - started) / calls;
}

const emulator = await startEmulator({ key: KEY });
const live = new OpenAITransport({ apiKey: KEY, baseUrl: emulator.url });
const path = join(mkdtempSync(join(tmpdir(), 'switchboard-bench-cassette-')), 'bench.cassette.jsonl');
await timed(live); // warm-up: connections, JIT
const liveMs = await timed(live);
const recordMs = await timed(recordCassette(path, live, { apiKey: KEY }));
await emulator.close();
const replayMs = await timed(replayCassette(path, { apiKey: 'replay' }));
const bytes = statSync(path).size;

const row = (label: string, value: string) => `| ${label} | ${value} |`;
console.log(
  [
    `## Cassettes (${calls} sequential calls, ~${Math.round(bytes / calls)} B per recorded call)`,
    '',
    '| figure | value |',
    '|---|---:|',
    row('live call through the emulator, ms per call', liveMs.toFixed(3)),
    row('the same call recorded, ms per call', recordMs.toFixed(3)),
    row('recording overhead, ms per call', (recordMs - liveMs).toFixed(3)),
    row('strict replay, no socket, ms per call', replayMs.toFixed(3)),
    row('cassette size, KiB', (bytes / 1024).toFixed(1)),
  ].join('\n'),
);

await benchStreamRecording(streamSizes, emulatorSizes, rounds);
