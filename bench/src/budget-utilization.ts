// Budget utilization (issue 30), printed as markdown; not part of the tests. Needs the
// Debian package redis-server on the PATH.
//
// 16 callers share one budget and loop, each making one call after another through a
// ChatAdapter to the emulator, until the budget refuses it: how much of the limit is
// spent when every caller has stopped, on the memory store and on Redis, with the
// default (a call blocked only by reservations waits for them to settle) and with
// `waitForSettlements: false` (it is refused at once, as before), and with `fitMaxTokens`
// (a call whose worst case does not fit what is left is sent with a lower max_tokens, down
// to a floor, instead of being refused). Each row prints the machine's load as it started.
//
// Usage (from the root): pnpm --filter @switchboard/bench bench:budget-utilization [--quick]
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { ChatAdapter, OpenAITransport } from '@switchboard/adapter';
import {
  type BudgetStore,
  createBudget,
  MemoryBudgetStore,
  RedisBudgetStore,
  worstCaseCostUsd,
} from '@switchboard/budget';
import { startEmulator } from '@switchboard/emulator';
import { costOf, priceOf } from '@switchboard/prices';
// The redis-server the budget tests start, reused rather than copied.
import { startRedis } from '../../packages/budget/test/support/start-redis.js';
import { machineInfo } from './machine.js';
import { BENCH_API_KEY, BENCH_MESSAGES, BENCH_MODEL } from './settings.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((argument) => argument !== '--'),
  options: { quick: { type: 'boolean', default: false } },
});
const quick = values.quick === true;
const CALLERS = 16;
const MAX_TOKENS = 256;
/** The floor `fitMaxTokens` may lower a call's max_tokens to. */
const MIN_TOKENS = 16;
/** Enough for about this many calls at their actual cost (fewer at their worst case). */
const CALLS_AFFORDED = quick ? 150 : 600;

interface Figures {
  readonly store: string;
  readonly waits: boolean;
  /** Whether the budget fits calls to what is left (`fitMaxTokens: { minTokens: MIN_TOKENS }`). */
  readonly fits: boolean;
  /** Calls sent with a lowered max_tokens. */
  readonly fitted: number;
  /** The 1-minute load average as the row started. */
  readonly load: number;
  readonly limitUsd: number;
  readonly spentUsd: number;
  readonly worstUsd: number;
  readonly calls: number;
  /** Spent when the first caller was refused: where a pipeline that stops at its first refusal stops. */
  readonly firstRefusalSpentUsd: number;
  readonly refusals: Readonly<Record<string, number>>;
  readonly seconds: number;
}

const prices = priceOf(BENCH_MODEL);
if (prices === null) throw new Error(`${BENCH_MODEL} has no price`);
/** One call's worst case at a cap of `maxTokens`, as the budget counts it. */
const worstAt = (maxTokens: number): number =>
  worstCaseCostUsd(
    {
      model: BENCH_MODEL,
      attempt: 1,
      role: null,
      messages: BENCH_MESSAGES,
      tools: undefined,
      maxTokens,
      signal: undefined,
    },
    { maxPricesOf: () => prices, maxOutputTokensOf: () => null, maxCostUsdOf: () => null },
    'bench',
  );
const worstUsd = worstAt(MAX_TOKENS);
const floorUsd = worstAt(MIN_TOKENS);

const emulator = await startEmulator({ key: BENCH_API_KEY });
const transport = new OpenAITransport({ apiKey: BENCH_API_KEY, baseUrl: emulator.url, maxAttempts: 1 });
const endpoint = { cost: (usage: unknown) => costOf(prices, usage) };

// One call's actual cost, to size the limit.
const probe = await new ChatAdapter(transport, { endpoint }).complete({
  model: BENCH_MODEL,
  messages: BENCH_MESSAGES,
  maxTokens: MAX_TOKENS,
});
const actualUsd = probe.costUsd ?? 0;
const limitUsd = Math.round(actualUsd * CALLS_AFFORDED * 1e6) / 1e6;

async function run(name: string, store: BudgetStore, waits: boolean, fits = false): Promise<Figures> {
  const load = loadavg()[0] ?? 0;
  const budget = createBudget({
    store,
    scope: {
      name: `utilization-${name}-${waits ? 'wait' : 'refuse'}${fits ? '-fit' : ''}-${Date.now()}`,
      limitUsd,
    },
    waitForSettlements: waits,
    ...(fits ? { fitMaxTokens: { minTokens: MIN_TOKENS } } : {}),
    onWarning: () => {},
  });
  const adapter = new ChatAdapter(transport, { observers: [budget], endpoint });
  const refusals: Record<string, number> = {};
  let calls = 0;
  let fitted = 0;
  let firstRefusal: Promise<number> | null = null;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CALLERS }, async () => {
      for (;;) {
        try {
          const response = await adapter.complete({
            model: BENCH_MODEL,
            messages: BENCH_MESSAGES,
            maxTokens: MAX_TOKENS,
          });
          calls += 1;
          if (response.calls.some((call) => call.maxTokensLowered != null)) fitted += 1;
        } catch (error) {
          const { kind, reason } = error as { kind?: string; reason?: string };
          const key = kind === 'budget' ? (reason ?? 'budget') : (kind ?? 'other');
          refusals[key] = (refusals[key] ?? 0) + 1;
          firstRefusal ??= budget.usage().then(([scope]) => scope?.spentUsd ?? 0);
          return;
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const firstRefusalSpentUsd = (await firstRefusal) ?? 0;
  await budget.idle();
  const [scope] = await budget.usage();
  await budget.close();
  return {
    store: name,
    waits,
    fits,
    fitted,
    load,
    limitUsd,
    spentUsd: scope?.spentUsd ?? 0,
    worstUsd,
    calls,
    firstRefusalSpentUsd,
    refusals,
    seconds,
  };
}

const machine = machineInfo();
const load = loadavg()[0] ?? 0;
const rows: Figures[] = [];
const redis = await startRedis();
const redisStore = new RedisBudgetStore({ url: redis.url, prefix: 'bench-utilization:' });
try {
  for (const waits of [true, false]) {
    rows.push(await run('memory', new MemoryBudgetStore(), waits));
    rows.push(await run('Redis', redisStore, waits));
  }
  rows.push(await run('memory', new MemoryBudgetStore(), true, true));
  rows.push(await run('Redis', redisStore, true, true));
} finally {
  await redisStore.close();
  await redis.stop();
  await emulator.close();
}

const usd = (value: number) => `$${value.toFixed(6)}`;
const lines = [
  '### Budget utilization (issue 30)',
  '',
  `Machine: ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}; load average ${load.toFixed(1)} at the start`,
  '',
  `${CALLERS} callers loop through one ChatAdapter to the emulator (max_tokens ${MAX_TOKENS}) until the budget refuses them; one call's worst case ${usd(worstUsd)}, its actual cost ${usd(actualUsd)} (${(worstUsd / actualUsd).toFixed(1)}x); limit ${usd(limitUsd)}.`,
  '',
  `With fitMaxTokens the floor is ${MIN_TOKENS} tokens (a call's worst case there ${usd(floorUsd)}); "fitted" counts the calls sent with a lowered max_tokens.`,
  '',
  '| store | a call blocked by reservations | fitMaxTokens | calls run | fitted | spent when the first caller was refused | spent when all were | share of the limit | left (in worst cases) | target: spent ≥ limit − one worst case, ≤ limit | refusals | seconds | load |',
  '|---|---|---|---:|---:|---:|---:|---:|---:|---|---|---:|---:|',
  ...rows.map((row) => {
    const met = row.spentUsd <= row.limitUsd && row.spentUsd >= row.limitUsd - row.worstUsd;
    const refusals = Object.entries(row.refusals)
      .map(([reason, count]) => `${reason} ${count}`)
      .join(', ');
    const share = (spent: number) => `${((spent / row.limitUsd) * 100).toFixed(1)}%`;
    return `| ${row.store} | ${row.waits ? 'waits (default)' : 'refused (`waitForSettlements: false`)'} | ${row.fits ? `on (floor ${MIN_TOKENS})` : 'off'} | ${row.calls} | ${row.fitted} | ${usd(row.firstRefusalSpentUsd)} (${share(row.firstRefusalSpentUsd)}) | ${usd(row.spentUsd)} | ${share(row.spentUsd)} | ${((row.limitUsd - row.spentUsd) / row.worstUsd).toFixed(2)} | ${met ? 'yes' : 'no'} | ${refusals} | ${row.seconds.toFixed(2)} | ${row.load.toFixed(1)} |`;
  }),
];
console.log(lines.join('\n'));
