// Benchmarks of issue 6: per-call client overhead against the emulator on
// loopback (the emulator in a child process), and cost metering at scale.
// Prints markdown and writes bench/results/latest.json. Not part of the tests.
//
// Usage (from the root): pnpm bench [--quick] [--rounds N] [--max-seconds S]
import { mkdirSync, writeFileSync } from 'node:fs';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import { type BenchClient, createClients, DEFAULT_CLIENT_IDS } from './clients.js';
import { type EmulatorProcess, startEmulatorProcess } from './emulator-client.js';
import { machineInfo } from './machine.js';
import { inProcess } from './measure.js';
import { runMetering } from './metering.js';
import { markdownReport } from './report.js';
import { runScenario, type Scenario, type ScenarioResult } from './scenarios.js';
import { checkTargets } from './targets.js';

const { values } = parseArgs({
  // `pnpm bench -- --quick` passes the `--` along.
  args: process.argv.slice(2).filter((argument) => argument !== '--'),
  options: {
    quick: { type: 'boolean', default: false },
    rounds: { type: 'string' },
    'max-seconds': { type: 'string' },
  },
});
const quick = values.quick === true;
const rounds = Number(values.rounds ?? (quick ? 2 : 6));
const maxSeconds = Number(values['max-seconds'] ?? 300);
if (!Number.isInteger(rounds) || rounds < 1) throw new RangeError('--rounds must be a positive integer');
if (!(maxSeconds > 0)) throw new RangeError('--max-seconds must be a positive number of seconds');
const scale = quick ? 0.2 : 1;
const METERING_CALLS = 100_000;

const BASE_SCENARIOS: Scenario[] = [
  { id: 'sequential-small', label: 'Sequential, small reply', size: 'small', concurrency: 1, calls: 400 },
  { id: 'sequential-large', label: 'Sequential, ~50 KB reply', size: 'large', concurrency: 1, calls: 60 },
  {
    id: 'concurrent-small',
    label: 'Concurrency 32, small reply',
    size: 'small',
    concurrency: 32,
    calls: 1_280,
  },
  {
    id: 'concurrent-large',
    label: 'Concurrency 32, ~50 KB reply',
    size: 'large',
    concurrency: 32,
    calls: 192,
  },
];
const SCENARIOS = BASE_SCENARIOS.map((scenario) => ({
  ...scenario,
  calls: Math.max(scenario.concurrency, Math.round(scenario.calls * scale)),
}));

/** Every client must send the same request body, or the comparison is unfair. */
async function checkSameRequests(emulator: EmulatorProcess, clients: BenchClient[]): Promise<void> {
  await emulator.reset();
  for (const client of clients) {
    const chars = await client.call();
    if (!(chars > 0)) throw new Error(`${client.id}: empty answer`);
  }
  const { small } = await emulator.requests();
  const [first, ...others] = small;
  others.forEach((body, index) => {
    if (!isDeepStrictEqual(body, first)) {
      throw new Error(
        `${clients[index + 1]?.id} sent ${JSON.stringify(body)}, but ${clients[0]?.id} sent ${JSON.stringify(first)}`,
      );
    }
  });
  console.log(`request bodies: identical for all ${clients.length} clients: ${JSON.stringify(first)}`);
}

async function main(): Promise<void> {
  const started = performance.now();
  const deadline = started + maxSeconds * 1000;
  const machine = machineInfo();
  console.log(`machine: ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}`);
  if (!(globalThis as { gc?: unknown }).gc)
    console.log('note: run with --expose-gc to collect garbage between batches');

  const emulator = await startEmulatorProcess();
  const results: ScenarioResult[] = [];
  let closeClients: BenchClient[] = [];
  try {
    const clientsBySize = {
      small: await createClients(emulator.smallUrl),
      large: await createClients(emulator.largeUrl),
    };
    closeClients = [...clientsBySize.small, ...clientsBySize.large];
    await checkSameRequests(emulator, clientsBySize.small);
    for (const scenario of SCENARIOS) {
      await emulator.reset();
      const result = await runScenario(
        scenario,
        clientsBySize[scenario.size].map(inProcess),
        rounds,
        deadline,
      );
      results.push(result);
      console.log(
        `${scenario.label}: ${result.rounds} rounds in ${((performance.now() - started) / 1000).toFixed(0)} s`,
      );
    }
  } finally {
    await emulator.close();
    for (const client of closeClients) await client.close?.();
  }

  const metering = await runMetering(METERING_CALLS, quick ? 3 : 15);
  const targets = checkTargets(results, metering);
  const markdown = markdownReport(machine, results, metering, targets);
  console.log(`\n${markdown}`);
  const missed = targets.filter((check) => !check.met);
  console.log(
    missed.length === 0 ? 'targets: all met' : `targets: ${missed.length} of ${targets.length} not met`,
  );

  const resultsFolder = new URL('../results/', import.meta.url);
  mkdirSync(resultsFolder, { recursive: true });
  const json = {
    date: new Date().toISOString(),
    machine,
    settings: { quick, rounds, maxSeconds, clients: DEFAULT_CLIENT_IDS, baseline: 'openai' },
    scenarios: results,
    metering,
    targets,
    seconds: (performance.now() - started) / 1000,
  };
  writeFileSync(new URL('latest.json', resultsFolder), `${JSON.stringify(json, null, 2)}\n`);
  console.log('wrote bench/results/latest.json');
}

await main();
