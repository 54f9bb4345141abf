// Per-call wall time of our clients against the `openai` SDK, with an A/A control:
// raw fetch (the floor), the SDK, a second SDK client, `ChatAdapter.complete` over each
// wire transport (FetchTransport, NodeTransport), and the full stack (resolved client +
// memory budget + journal + meter + OTel observer). Many short rotated rounds; prints one
// markdown table of within-round ratios, and exits 1 (loudly) when NodeTransport is slower
// than FetchTransport on sequential small calls: a floor moved under us (undici #5493 moved
// fetch's; a change in node:http could move ours).
//
// With --layers, also the resolved client alone and with each observer of the full stack alone, and a table of
// what each layer adds per call (its row's ratio less the resolved client's, in the SDK's time per call).
//
// Every client runs in this process, so a change in the machine's load reaches them all alike. With --isolate,
// each runs in a process of its own (src/isolated-client-process.ts), as in a user's process: what the JIT
// learns and caches there is that client's alone, not shared with the SDK's and the other clients' code.
//
// With --gc minor, the garbage collected before each batch is the young generation's only (default --gc full: a
// full collection, which also drops optimized code whose objects died, so each batch starts by optimizing again).
//
// Every client first makes --warm-up sequential small calls (default 8,000; none with --quick), so what is
// measured is each client in its steady state, as in a service that has run for a while.
//
// Usage: pnpm --filter @switchboard/bench bench:speed [--rounds N] [--quick] [--only a,b] [--layers] [--gc full|minor]
//        [--isolate] [--warm-up calls]
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { type ClientId, createClients } from './clients.js';
import { startEmulatorProcess } from './emulator-client.js';
import { startIsolatedClients } from './isolated-clients.js';
import { machineInfo } from './machine.js';
import { type BatchRunner, type Collection, inProcess, median } from './measure.js';
import { pairedRatio, runScenario, type Scenario, type ScenarioResult } from './scenarios.js';
import { STEADY_AFTER } from './settings.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((argument) => argument !== '--'),
  options: {
    quick: { type: 'boolean', default: false },
    rounds: { type: 'string' },
    only: { type: 'string' },
    layers: { type: 'boolean', default: false },
    gc: { type: 'string', default: 'full' },
    isolate: { type: 'boolean', default: false },
    'warm-up': { type: 'string' },
  },
});
const quick = values.quick === true;
const rounds = Number(values.rounds ?? (quick ? 4 : 40));
if (!Number.isInteger(rounds) || rounds < 1) throw new RangeError('--rounds must be a positive integer');
if (values.gc !== 'full' && values.gc !== 'minor') throw new RangeError('--gc must be full or minor');
const collection: Collection = values.gc;
const isolate = values.isolate === true;
const warmUp = Number(values['warm-up'] ?? (quick ? 0 : STEADY_AFTER));
if (!(Number.isInteger(warmUp) && warmUp >= 0))
  throw new RangeError('--warm-up must be a whole number of calls');

const LAYER_IDS: ClientId[] = ['resolved', 'layer-budget', 'layer-journal', 'layer-meter', 'layer-otel'];
const IDS: ClientId[] = [
  'fetch',
  'openai',
  'openai-aa',
  'adapter-fetch',
  'adapter',
  'full',
  ...(values.layers ? LAYER_IDS : []),
];
// Short batches, many rounds: the machine's load changes less within a round.
const SCENARIOS: Scenario[] = [
  { id: 'seq-small', label: 'seq small', size: 'small', concurrency: 1, calls: 100 },
  { id: 'seq-large', label: 'seq 55 KB', size: 'large', concurrency: 1, calls: 16 },
  { id: 'c32-small', label: 'c32 small', size: 'small', concurrency: 32, calls: 320 },
  { id: 'c32-large', label: 'c32 55 KB', size: 'large', concurrency: 32, calls: 64 },
];
const only = values.only?.split(',');

/** Time per call as a "lower is better" ratio to `base` (the SDK): median latency sequentially, 1 / throughput at c32. */
function timeRatio(result: ScenarioResult, id: ClientId, base: ClientId = 'openai'): number {
  const row = result.clients.find((client) => client.client === id);
  const baseRow = result.clients.find((client) => client.client === base);
  if (!row || !baseRow) return Number.NaN;
  return result.concurrency === 1
    ? pairedRatio(row, baseRow, 'medianMicros')
    : 1 / pairedRatio(row, baseRow, 'callsPerSecond');
}

/** The spread of the within-round ratios of a client to `baseline` (10th and 90th percentiles). */
function spread(result: ScenarioResult, id: ClientId, baseline: ClientId = 'openai'): string {
  const row = result.clients.find((client) => client.client === id);
  const base = result.clients.find((client) => client.client === baseline);
  if (!row || !base) return '';
  const metric = result.concurrency === 1 ? 'medianMicros' : 'callsPerSecond';
  const ratios = row.rounds
    .map((round, index) => {
      const other = base.rounds[index]?.[metric] ?? Number.NaN;
      return metric === 'medianMicros' ? round[metric] / other : other / round[metric];
    })
    .sort((a, b) => a - b);
  const at = (q: number) => ratios[Math.min(ratios.length - 1, Math.floor(q * ratios.length))] ?? Number.NaN;
  return `${at(0.1).toFixed(2)}–${at(0.9).toFixed(2)}`;
}

/**
 * The floor guard: NodeTransport's median latency over FetchTransport's on sequential small calls
 * (the median of the within-round ratios), or null when either was left out (`--only`).
 */
function nodeOverFetch(results: readonly ScenarioResult[]): { ratio: number; spread: string } | null {
  const result = results.find((candidate) => candidate.id === 'seq-small');
  const node = result?.clients.find((client) => client.client === 'adapter');
  const fetchRow = result?.clients.find((client) => client.client === 'adapter-fetch');
  if (!result || !node || !fetchRow) return null;
  return {
    ratio: pairedRatio(node, fetchRow, 'medianMicros'),
    spread: spread(result, 'adapter', 'adapter-fetch'),
  };
}

/** What each observer adds to the resolved client per call, in the SDK's time per call (its ratio less resolved's). */
function layerTable(results: readonly ScenarioResult[]): string[] {
  const rows = ['layer-budget', 'layer-journal', 'layer-meter', 'layer-otel', 'full'] as const;
  const lines = [
    "What each layer adds per call, in multiples of the SDK's time per call: (the row ÷ the resolved client, within",
    "each round, less 1) × the resolved client's ratio to the SDK; a negative figure is noise below what one run resolves.",
    '',
    `| layer | ${SCENARIOS.map((scenario) => scenario.label).join(' | ')} |`,
    `|---|${SCENARIOS.map(() => '---:').join('|')}|`,
  ];
  for (const id of rows) {
    const cells = results.map((result) => {
      const added = (timeRatio(result, id, 'resolved') - 1) * timeRatio(result, 'resolved');
      return `${added >= 0 ? '+' : ''}${added.toFixed(3)}x`;
    });
    lines.push(
      `| ${id === 'full' ? 'all four (full stack)' : id.slice('layer-'.length)} | ${cells.join(' | ')} |`,
    );
  }
  return lines;
}

/** `warmUp` sequential small calls of each client, in batches as the rounds make them, with progress. */
async function warmUpAll(clients: readonly BatchRunner[], started: number): Promise<void> {
  if (warmUp === 0) return;
  for (const client of clients) {
    for (let left = warmUp; left > 0; left -= 100) await client.batch(Math.min(100, left), 1, collection);
    console.error(
      `warm-up: ${client.id}, ${warmUp} calls, ${((performance.now() - started) / 1000).toFixed(0)} s`,
    );
  }
}

/** Every client of `ids` in this process, small and large. */
async function inThisProcess(ids: readonly ClientId[], urls: { smallUrl: string; largeUrl: string }) {
  const small = await createClients(urls.smallUrl, ids);
  const large = await createClients(urls.largeUrl, ids);
  return {
    small: small.map(inProcess),
    large: large.map(inProcess),
    async close() {
      for (const client of [...small, ...large]) await client.close?.();
    },
  };
}

const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' / ');

async function main(): Promise<void> {
  const machine = machineInfo();
  const loadAtStart = load();
  const started = performance.now();
  const emulator = await startEmulatorProcess();
  const ids = IDS.filter((id) => id === 'openai' || !only || only.includes(id));
  const clients = isolate ? await startIsolatedClients(ids, emulator) : await inThisProcess(ids, emulator);
  const results: ScenarioResult[] = [];
  try {
    await warmUpAll(clients.small, started);
    for (const scenario of SCENARIOS) {
      await emulator.reset();
      const calls = quick ? Math.max(scenario.concurrency, scenario.calls >> 2) : scenario.calls;
      results.push(
        await runScenario({ ...scenario, calls }, clients[scenario.size], rounds, Infinity, collection),
      );
      console.error(`${scenario.label}: done in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    }
  } finally {
    await clients.close();
    await emulator.close();
  }
  const lines = [
    `Per-call wall time vs the \`openai\` SDK (median over ${rounds} rotated rounds of the within-round ratio;`,
    'sequential: median latency; c32: wall time per call, 1 / throughput). In brackets: 10th–90th percentile of the rounds.',
    `Machine: ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}; ${new Date().toISOString().slice(0, 16)}Z;`,
    `load average (1 / 5 / 15 min) ${loadAtStart} at the start, ${load()} at the end;`,
    `garbage collected before each batch: ${collection === 'full' ? 'full collection (--gc full)' : 'young generation only (--gc minor)'};`,
    `${isolate ? 'each client in a process of its own (--isolate)' : 'every client in one process'}; ${warmUp === 0 ? 'no warm-up (--warm-up 0): from the first calls' : `each client warmed up first by ${warmUp} sequential small calls (--warm-up)`}`,
    '',
    `| client | ${SCENARIOS.map((scenario) => scenario.label).join(' | ')} |`,
    `|---|${SCENARIOS.map(() => '---:').join('|')}|`,
  ];
  for (const client of clients.small) {
    if (client.id === 'openai') continue;
    const cells = results.map(
      (result) => `${timeRatio(result, client.id).toFixed(2)}x (${spread(result, client.id)})`,
    );
    lines.push(`| ${client.label} | ${cells.join(' | ')} |`);
  }
  const sdk = results.map((result) => {
    const row = result.clients.find((client) => client.client === 'openai');
    return row ? median(row.rounds.map((round) => round.medianMicros)).toFixed(0) : '';
  });
  lines.push(`| (\`openai\` SDK, median µs per call) | ${sdk.join(' | ')} |`);
  if (values.layers) lines.push('', ...layerTable(results));
  const guard = nodeOverFetch(results);
  if (guard !== null) {
    lines.push(
      '',
      `NodeTransport / FetchTransport, sequential small calls: ${guard.ratio.toFixed(2)}x (${guard.spread}); must be at most 1.00x`,
    );
  }
  console.log(lines.join('\n'));
  if (guard !== null && !(guard.ratio <= 1)) {
    console.error(
      [
        '',
        '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!',
        `!!! FAILED: NodeTransport is SLOWER than FetchTransport on sequential small calls: ${guard.ratio.toFixed(2)}x`,
        '!!! The floor moved: profile both (bench:profile adapter / adapter-fetch) and look at what changed in',
        '!!! node:http (or the Node version) before shipping; resolveChatEndpoint sends with NodeTransport.',
        '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!',
      ].join('\n'),
    );
    process.exitCode = 1;
  }
}

await main();
