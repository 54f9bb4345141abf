// One worker process of the budget-stores benchmark: `lanes` lanes of reserve then settle, back to back, on a
// budget whose store is given by kind (memory, redis, postgres, postgres-settle-async: synchronousCommit 'off') and url. Reports its latencies (ms) over IPC.
// Kind redis-ping: no budget, two PINGs back to back on one ioredis connection (the client the Redis store uses),
// the floor of reserve + settle's two round trips on this machine. Kind redis-interleaved: a Redis budget's pair,
// then two EVALSHA of a trivial script on an ioredis connection of its own, one after the other (floorMs: the
// EVALSHA pairs). The fifth argument names a role (empty: none), and the budget tree is then a root and that role's
// scope; the sixth is how many pairs to make, all lanes at once, before the parent's go (the warm-up).
import {
  type BudgetStore,
  createBudget,
  MemoryBudgetStore,
  PostgresBudgetStore,
  RedisBudgetStore,
} from '@switchboard/budget';
import { requireFromBudget } from './budget-dependencies.js';
import { BUDGET_INFO, BUDGET_PRICES, BUDGET_RECORD } from './budget-settings.js';

const [kindArgument, url, lanesText, callsText, roleText, warmUpText] = process.argv.slice(2);
const role = roleText === '' ? undefined : roleText;
const warmUps = Number(warmUpText);
// `<kind>+allotments`: the budget reserves from shares of the headroom (no maxInFlight: a chain with one is not served).
const allotments = kindArgument?.endsWith('+allotments') === true;
const kind = allotments ? kindArgument?.slice(0, -'+allotments'.length) : kindArgument;
const maxInFlight = allotments ? {} : { maxInFlight: 100_000 };
const lanes = Number(lanesText);
const calls = Number(callsText);
/** What the PING and EVALSHA rows use of an ioredis client. */
interface PingClient {
  ping(): Promise<string>;
  evalsha(sha: string, keys: number): Promise<unknown>;
  script(command: 'LOAD', source: string): Promise<string>;
  disconnect(): void;
}
const redisPing: PingClient | null =
  kind === 'redis-ping' || kind === 'redis-interleaved'
    ? new (requireFromBudget('ioredis') as { Redis: new (url: string) => PingClient }).Redis(url ?? '')
    : null;
const trivialScript = kind === 'redis-interleaved' ? await redisPing?.script('LOAD', 'return 1') : undefined;
const store: BudgetStore =
  kind === 'redis' || kind === 'redis-interleaved'
    ? new RedisBudgetStore({ url: url ?? '', prefix: 'bench-stores:' })
    : kind === 'postgres'
      ? new PostgresBudgetStore({ url: url ?? '', schema: 'bench' })
      : kind === 'postgres-settle-async'
        ? new PostgresBudgetStore({ url: url ?? '', schema: 'bench_async', synchronousCommit: 'off' })
        : new MemoryBudgetStore();
const budget = createBudget({
  store,
  ownsStore: true,
  scope: { name: 'bench-stores', limitUsd: 1_000_000, ...maxInFlight },
  ...(role === undefined ? {} : { roles: { [role]: { limitUsd: 1_000_000, ...maxInFlight } } }),
  maxPricesOf: () => BUDGET_PRICES,
  allotments,
});
const info = role === undefined ? BUDGET_INFO : { ...BUDGET_INFO, role };
const floorMs: number[] = [];
/** One reserve then settle; or, for redis-ping, two PINGs. */
async function reserveAndSettle(): Promise<void> {
  if (redisPing !== null && trivialScript === undefined) {
    await redisPing.ping();
    await redisPing.ping();
    return;
  }
  const handle = await budget.beforeAttempt(info);
  await handle.end({ record: BUDGET_RECORD, error: null, mayHaveBeenBilled: true });
}

/** For redis-interleaved, after each pair: two EVALSHA of a trivial script, timed into floorMs. */
async function floorPair(): Promise<void> {
  if (redisPing === null || trivialScript === undefined) return;
  const started = performance.now();
  await redisPing.evalsha(trivialScript, 0);
  await redisPing.evalsha(trivialScript, 0);
  floorMs.push(performance.now() - started);
}

const bothMs: number[] = [];
let refused = 0;
let next = 0;

async function lane(): Promise<void> {
  while (next < calls) {
    next += 1;
    const started = performance.now();
    try {
      await reserveAndSettle();
      bothMs.push(performance.now() - started);
      await floorPair();
    } catch {
      // Refused (the store did not answer in time): counted, not timed.
      refused += 1;
    }
  }
}

// Warm up (connections, scripts, the tables), all lanes at once so each opens its connection now, then wait for
// the parent's go so all workers start together.
await Promise.all(
  Array.from({ length: lanes }, async () => {
    for (let warmUp = 0; warmUp < warmUps / lanes; warmUp++) await reserveAndSettle();
  }),
);
bothMs.length = 0;
floorMs.length = 0;
process.send?.({ type: 'ready' });
process.once('message', async () => {
  const started = performance.now();
  const cpuFrom = process.cpuUsage();
  await Promise.all(Array.from({ length: lanes }, () => lane()));
  const wallMs = performance.now() - started;
  // This process's CPU over its lanes (user + system), in ms: the client's share of a machine the server shares.
  const cpu = process.cpuUsage(cpuFrom);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  await budget.close({ timeoutMs: 10_000 });
  redisPing?.disconnect();
  process.send?.({ type: 'done', bothMs, floorMs, wallMs, refused, cpuMs }, () => process.disconnect());
});
