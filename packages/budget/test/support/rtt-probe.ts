// Quick probe (not a test): where the time of a reserve + settle on Redis goes.
import { Redis } from 'ioredis';
import { createBudget } from '../../src/budget.js';
import { RedisBudgetStore } from '../../src/redis-store.js';
import { attemptInfo, callRecord, DOLLAR_PER_OUTPUT_TOKEN } from './attempt-info.js';
import { startRedis } from './start-redis.js';

const N = Number(process.argv[2] ?? 3000);
const redis = await startRedis();
const pct = (values: number[], share: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return (sorted[Math.floor(share * sorted.length)] ?? 0) * 1000;
};
const row = (name: string, values: number[]) =>
  console.log(
    `${name.padEnd(40)} p50 ${pct(values, 0.5).toFixed(0)} µs  p99 ${pct(values, 0.99).toFixed(0)} µs`,
  );
try {
  const plain = new Redis(redis.url);
  plain.defineCommand('noop', { numberOfKeys: 0, lua: 'return 1' });
  const pings: number[] = [];
  const noops: number[] = [];
  for (let i = 0; i < N; i++) {
    let t = performance.now();
    await plain.ping();
    pings.push(performance.now() - t);
    t = performance.now();
    await (plain as unknown as { noop(): Promise<number> }).noop();
    noops.push(performance.now() - t);
  }
  row('PING', pings);
  row('EVALSHA return 1', noops);
  const store = new RedisBudgetStore({ url: redis.url });
  const budget = createBudget({
    store,
    scope: { name: 'probe', limitUsd: 1_000_000 },
    maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
  });
  // The budget's pair and the store's alone, interleaved pair by pair: what the machine and Redis
  // do meanwhile (a busy neighbour, a persistence write) falls on both alike. Measured one after the
  // other instead, their tails differed by the minute they ran in, not by the code.
  const reserve: number[] = [];
  const settle: number[] = [];
  const both: number[] = [];
  const direct: number[] = [];
  const scopes = [{ key: '{probe-direct}', limitNanoUsd: 1e15, maxInFlight: null }];
  let budgetMicros = 0;
  let storeMicros = 0;
  for (let i = 0; i < N + 200; i++) {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const handle = await budget.beforeAttempt(attemptInfo({ maxTokens: 3 }));
    const t1 = performance.now();
    await handle.end({ record: callRecord(1), error: null, mayHaveBeenBilled: true });
    const t2 = performance.now();
    const cpu1 = process.cpuUsage(cpu0);
    const leaseId = `lease-${i}`;
    await store.acquire({ leaseId, scopes, amountNanoUsd: 3e9, ttlMs: 30_000 });
    await store.settle(leaseId, scopes, { actualNanoUsd: 1e9, leased: true });
    const t3 = performance.now();
    const cpu2 = process.cpuUsage(cpu0);
    if (i < 200) continue;
    budgetMicros += cpu1.user + cpu1.system;
    storeMicros += cpu2.user + cpu2.system - (cpu1.user + cpu1.system);
    reserve.push(t1 - t0);
    settle.push(t2 - t1);
    both.push(t2 - t0);
    direct.push(t3 - t2);
  }
  console.log(`budget path CPU per pair ${(budgetMicros / N).toFixed(0)} µs`);
  console.log(`store path CPU per pair ${(storeMicros / N).toFixed(0)} µs`);
  row('store acquire + settle (no budget)', direct);
  row('budget reserve', reserve);
  row('budget settle', settle);
  row('budget reserve + settle', both);
  const stats = await plain.info('commandstats');
  console.log(
    stats
      .split('\n')
      .filter((line) => /evalsha|ping/.test(line))
      .join('\n'),
  );
  await budget.close();
  await store.close();
  plain.disconnect();
} finally {
  await redis.stop();
}
