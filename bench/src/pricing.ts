// Bench row of issue 11: what pricing one call costs with @switchboard/prices
// (its built dist), flat and with a scheduled tariff (timezone, weekday windows,
// a window across midnight, a holiday calendar). Target: under 2 µs a call with
// the scheduled tariff. Prints markdown; not part of the tests.
//
// Usage (from the root): pnpm --filter @switchboard/bench bench:pricing
import { costOf, PRICE_TABLE, PriceBook } from '@switchboard/prices';
// The tariff the package's tests check hour by hour: off-peak nightly across midnight, peak on weekdays except holidays.
import { SHANGHAI } from '../../packages/prices/src/__fixtures__/tariffs.js';

const CALLS = 200_000;
const ROUNDS = 7;
const TARGET_NS = 2_000;

const USAGE = Object.freeze({
  prompt_tokens: 1_200,
  completion_tokens: 300,
  prompt_cache_hit_tokens: 1_024,
  prompt_cache_miss_tokens: 176,
});

const book = new PriceBook({ 'scheduled-model': SHANGHAI });
const flash = PRICE_TABLE.get('primary-flash') ?? null;
// Reply times a run would see: one call every 2 seconds from a Monday morning on, in force under the schedule.
const START = Date.parse('2026-03-02T08:00:00+08:00');
const times = Array.from({ length: CALLS }, (_, index) => START + index * 2_000);
const isoTimes = times.map((time) => new Date(time).toISOString());
// Times far apart (every 7 hours from START on, never the same twice, so each round
// meets new ones): every call needs a fresh timezone offset from Intl.
const SCATTERED = 20_000;
const scattered = Array.from(
  { length: SCATTERED * ROUNDS },
  (_, index) => START + 7 * 86_400_000 + index * 25_200_000,
);
let cursor = 0;

let sink = 0;

function nsPerCall(label: string, calls: number, price: (index: number) => number | null): [string, number] {
  const samples: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = process.hrtime.bigint();
    for (let index = 0; index < calls; index++) sink += price(index) ?? 0;
    samples.push(Number(process.hrtime.bigint() - started) / calls);
  }
  samples.sort((a, b) => a - b);
  return [label, samples[Math.floor(ROUNDS / 2)] as number];
}

const at = (index: number) => times[index] as number;
const rows = [
  nsPerCall('`costOf(prices, usage)`, flat (the spec rule)', CALLS, () => costOf(flash, USAGE)),
  nsPerCall(
    '`book.priceCall`, a table model (flat)',
    CALLS,
    (index) => book.priceCall({ model: 'primary-flash', usage: USAGE, at: at(index) }).costUsd,
  ),
  nsPerCall(
    '`book.costOf`, scheduled tariff',
    CALLS,
    (index) => book.costOf('scheduled-model', USAGE, { at: at(index) })?.costUsd ?? null,
  ),
  nsPerCall(
    '`book.priceCall`, scheduled tariff',
    CALLS,
    (index) => book.priceCall({ model: 'scheduled-model', usage: USAGE, at: at(index) }).costUsd,
  ),
  nsPerCall(
    '`book.priceCall`, scheduled tariff, ISO time strings',
    CALLS,
    (index) =>
      book.priceCall({ model: 'scheduled-model', usage: USAGE, at: isoTimes[index] as string }).costUsd,
  ),
  nsPerCall(
    '`book.priceCall`, scheduled tariff, times hours apart (offset cache misses)',
    SCATTERED,
    () =>
      book.priceCall({ model: 'scheduled-model', usage: USAGE, at: scattered[cursor++] as number }).costUsd,
  ),
];

console.log(
  `Node ${process.version}; ${CALLS.toLocaleString('en-US')} calls per round, median of ${ROUNDS} rounds\n`,
);
console.log('| pricing one call | ns/call |');
console.log('|---|---:|');
for (const [label, ns] of rows) console.log(`| ${label} | ${Math.round(ns).toLocaleString('en-US')} |`);
const scheduled = rows[3]?.[1] ?? Number.POSITIVE_INFINITY;
console.log(
  `\ntarget: a scheduled tariff under ${TARGET_NS.toLocaleString('en-US')} ns a call: ${Math.round(scheduled)} ns, ${scheduled < TARGET_NS ? 'met' : 'NOT met'}`,
);
if (sink < 0) console.log(sink);
