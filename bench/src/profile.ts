// bench:profile: runs one scenario of src/profile-client.ts under V8's sampling
// profiler (the emulator in a child process of its own, so the profile holds the
// client's side only; the warm-up left out), then prints where the client's CPU went: self time by group and the
// top functions, per call or per stream. The profile stays in bench/results/profiles/.
//
// Usage (from the root):
//   pnpm --filter @switchboard/bench bench:profile <scenario> [calls] [concurrency] [small|large] [--top N] [--interval µs]
//   pnpm --filter @switchboard/bench bench:profile --summarize <file.cpuprofile> [--units N] [--top N]
// <scenario>: fetch, openai, adapter, resolved, full, ... (complete() calls, default 4000 small sequential)
// or adapter-stream / openai-stream (1,000-event streams, default 300), or adapter-sse / openai-sse
// (streams of 100,000 ~140-byte events from memory, default 300 too: pass a smaller count).
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type CpuProfile, summarize } from './cpu-profile-summary.js';

const { values, positionals } = parseArgs({
  args: process.argv.slice(2).filter((argument) => argument !== '--'),
  allowPositionals: true,
  options: {
    top: { type: 'string', default: '25' },
    interval: { type: 'string', default: '100' },
    summarize: { type: 'string' },
    units: { type: 'string', default: '1' },
  },
});
const top = Number(values.top);

if (values.summarize !== undefined) {
  const profile = JSON.parse(readFileSync(values.summarize, 'utf8')) as CpuProfile;
  console.log(summarize(profile, { top, units: Number(values.units), unit: 'unit' }));
} else {
  const [scenario = 'adapter', calls, concurrency = '1', size = 'small'] = positionals;
  const streamed = scenario.endsWith('-stream') || scenario.endsWith('-sse');
  const count = calls ?? (streamed ? '300' : '4000');
  const directory = fileURLToPath(new URL('../results/profiles/', import.meta.url));
  mkdirSync(directory, { recursive: true });
  const name = `${scenario}-${size}-c${concurrency}-${new Date().toISOString().replace(/[:.]/g, '-')}.cpuprofile`;
  const loadBefore = loadavg()[0] ?? 0;
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      fileURLToPath(new URL('./profile-client.ts', import.meta.url)),
      join(directory, name),
      values.interval,
      scenario,
      count,
      concurrency,
      size,
    ],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`the profiled run exited with code ${code}`);
  const profile = JSON.parse(readFileSync(join(directory, name), 'utf8')) as CpuProfile;
  console.log(
    [
      '',
      `profile: bench/results/profiles/${name} (sampling every ${values.interval} µs; load average ${loadBefore.toFixed(1)} before, ${(loadavg()[0] ?? 0).toFixed(1)} after)`,
      `scenario: ${scenario}, ${count} ${streamed ? (scenario.endsWith('-sse') ? 'streams of 100,000 events' : 'streams of 1,000 events') : `${size} calls, ${concurrency} in flight`}, profiled after a warm-up`,
      '',
      summarize(profile, {
        top,
        units: Number(count),
        unit: streamed ? 'stream' : 'call',
      }),
    ].join('\n'),
  );
}
