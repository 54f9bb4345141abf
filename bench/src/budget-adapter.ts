// Issue 12 "Overhead": the CPU per call of a ChatAdapter with an in-memory budget
// as its observer, against the plain adapter, in interleaved rounds. Two rows: over
// OpenAITransport to the emulator on loopback (the emulator in a child process, so
// this process's CPU is the clients' only), and over a stub transport with no
// network, which shows the budget's own cost per call. Not part of the tests.
//
// Usage (from the root): pnpm --filter @switchboard/bench bench:budget-adapter [--quick]
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { ChatAdapter, type ChatTransport, OpenAITransport } from '@switchboard/adapter';
import { createBudget } from '@switchboard/budget';
import { startEmulatorProcess } from './emulator-client.js';
import { machineInfo } from './machine.js';
import { median, roundOrder } from './measure.js';
import { BENCH_API_KEY, BENCH_MESSAGES, BENCH_MODEL } from './settings.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((argument) => argument !== '--'),
  options: { quick: { type: 'boolean', default: false } },
});
const quick = values.quick === true;
const ROUNDS = quick ? 2 : 6;
const WIRE_CALLS = quick ? 100 : 400;
const STUB_CALLS = quick ? 5_000 : 50_000;
const REQUEST = { model: BENCH_MODEL, messages: BENCH_MESSAGES };
const collectGarbage = (globalThis as { gc?: () => void }).gc;

/** The plain adapter and the same adapter with a fresh in-memory budget as its observer. */
function pair(transport: ChatTransport): { plain: ChatAdapter; budgeted: ChatAdapter; close(): void } {
  const budget = createBudget({
    scope: { name: 'bench-adapter', limitUsd: 1_000_000 },
    // The bench's calls send no max_tokens: the output cap the worst case assumes.
    maxOutputTokens: 4096,
  });
  return {
    plain: new ChatAdapter(transport),
    budgeted: new ChatAdapter(transport, { observers: [budget] }),
    close: () => budget.close(),
  };
}

/** CPU µs of this process per call over `calls` sequential calls. */
async function cpuPerCall(adapter: ChatAdapter, calls: number): Promise<number> {
  collectGarbage?.();
  const before = process.cpuUsage();
  for (let call = 0; call < calls; call++) await adapter.complete(REQUEST);
  const spent = process.cpuUsage(before);
  return (spent.user + spent.system) / calls;
}

interface Row {
  readonly plainMicros: number;
  readonly budgetedMicros: number;
  /** The median over the rounds of budgeted / plain within the round. */
  readonly ratio: number;
}

/** A warm-up batch each, then `ROUNDS` rounds in an order rotated and reversed from round to round. */
async function measure(adapters: { plain: ChatAdapter; budgeted: ChatAdapter }, calls: number): Promise<Row> {
  const kinds = ['plain', 'budgeted'] as const;
  for (const kind of kinds) await cpuPerCall(adapters[kind], Math.ceil(calls / 4));
  const runs = { plain: [] as number[], budgeted: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const kind of roundOrder(kinds, round)) runs[kind].push(await cpuPerCall(adapters[kind], calls));
  }
  return {
    plainMicros: median(runs.plain),
    budgetedMicros: median(runs.budgeted),
    ratio: median(runs.budgeted.map((micros, round) => micros / (runs.plain[round] ?? Number.NaN))),
  };
}

const machine = machineInfo();
const load = loadavg()[0] ?? 0;
console.log(
  `machine: ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}; load average ${load.toFixed(1)}`,
);
const emulator = await startEmulatorProcess();
let wire: Row;
try {
  const adapters = pair(new OpenAITransport({ apiKey: BENCH_API_KEY, baseUrl: emulator.smallUrl }));
  wire = await measure(adapters, WIRE_CALLS);
  adapters.close();
} finally {
  await emulator.close();
}
const message = { role: 'assistant', content: 'The compile step failed.' };
const reply = {
  choices: [{ index: 0, message, finish_reason: 'stop' }],
  usage: {
    prompt_tokens: 40,
    completion_tokens: 8,
    prompt_cache_hit_tokens: 0,
    prompt_cache_miss_tokens: 40,
  },
};
const stubAdapters = pair({
  completeChatRaw: async () => reply,
  completeChat: async () => message,
});
const stub = await measure(stubAdapters, STUB_CALLS);
stubAdapters.close();

const fixed = (value: number, digits = 1) => value.toFixed(digits);
console.log(
  [
    '',
    '| row | plain adapter, CPU µs/call | with an in-memory budget | ratio (median of rounds) | target | met |',
    '|---|---:|---:|---:|---|---|',
    `| over OpenAITransport to the emulator, sequential (${WIRE_CALLS} calls x ${ROUNDS} rounds) | ${fixed(wire.plainMicros)} | ${fixed(wire.budgetedMicros)} | ${fixed(wire.ratio, 3)}x | <= 1.05x | ${wire.ratio <= 1.05 ? 'yes' : 'no'} |`,
    `| over a stub transport, no network (${STUB_CALLS.toLocaleString('en')} calls x ${ROUNDS} rounds) | ${fixed(stub.plainMicros, 2)} | ${fixed(stub.budgetedMicros, 2)} | ${fixed(stub.ratio, 2)}x | (the budget's own µs/call: ${fixed(stub.budgetedMicros - stub.plainMicros, 2)}) | |`,
  ].join('\n'),
);
