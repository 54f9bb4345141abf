import { ChatAdapter, type ChatTransport, type CompleteRequest } from '@switchboard/adapter';
import { ChatEndpoint } from '@switchboard/endpoint';
import { priceOf } from '@switchboard/prices';
import { median, roundOrder } from './measure.js';
import { BENCH_MESSAGES, BENCH_MODEL } from './settings.js';

/**
 * What metering 100,000 calls cost, in CPU milliseconds of this process
 * (medians over the rounds): CPU time, unlike wall time, does not grow when
 * other processes take the machine's cores, so the differences stay meaningful.
 */
export interface MeteringResult {
  readonly calls: number;
  readonly rounds: number;
  /** 100,000 calls through an adapter that records nothing (no usage in the reply, no cost model). */
  readonly unmeteredMs: number;
  /** The same calls with usage recorded and priced, and costUsd() checked after each call. */
  readonly meteredMs: number;
  /** meteredMs - unmeteredMs (within each round, then the median): everything metering added. */
  readonly meteringMs: number;
  /** 100,000 costUsd() checks alone, on an adapter holding 100,000 usage entries (wall ms, best of 5 loops). */
  readonly checksMs: number;
  /** The same checks on an adapter holding one entry: equal to checksMs when a check is O(1). */
  readonly checksOneEntryMs: number;
  /** 100,000 `endpoint.cost(entry)` calls on the recorded entries (wall ms, best of 5 loops). */
  readonly pricingMs: number;
  /** meteringMs - pricingMs - checksMs: keeping a frozen copy of each usage entry, and what that costs the GC. */
  readonly recordingMs: number;
  /** Whether the final costUsd() equals the sum of the per-call costs and every call was recorded. */
  readonly totalsAgree: boolean;
  /** The target: meteringMs < 50. */
  readonly targetMs: number;
}

// The shape the emulator (and the provider) sends.
const USAGE = Object.freeze({
  prompt_tokens: 1_200,
  completion_tokens: 300,
  total_tokens: 1_500,
  prompt_cache_hit_tokens: 1_024,
  prompt_cache_miss_tokens: 176,
  prompt_tokens_details: { cached_tokens: 1_024 },
  completion_tokens_details: { reasoning_tokens: 0 },
});

function reply(withUsage: boolean): Record<string, unknown> {
  return {
    id: 'chatcmpl-bench',
    object: 'chat.completion',
    model: BENCH_MODEL,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: 'The compile step failed: a missing import.' },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    ...(withUsage ? { usage: USAGE } : {}),
  };
}

/** A raw transport with no network: every call resolves with the same reply. */
function stubTransport(payload: Record<string, unknown>): ChatTransport {
  return {
    completeChatRaw: async () => payload,
    completeChat: async () => (payload.choices as { message: Record<string, unknown> }[])[0]?.message ?? {},
  };
}

const REQUEST: CompleteRequest = { model: BENCH_MODEL, messages: BENCH_MESSAGES };

/** CPU milliseconds (user + system) this process spends running `work`. */
async function cpuMilliseconds(work: () => Promise<void>): Promise<number> {
  const before = process.cpuUsage();
  await work();
  const spent = process.cpuUsage(before);
  return (spent.user + spent.system) / 1000;
}

async function unmetered(calls: number): Promise<number> {
  const adapter = new ChatAdapter(stubTransport(reply(false)));
  return cpuMilliseconds(async () => {
    for (let call = 0; call < calls; call++) await adapter.complete(REQUEST);
  });
}

async function metered(calls: number, endpoint: ChatEndpoint): Promise<{ ms: number; adapter: ChatAdapter }> {
  const adapter = new ChatAdapter(stubTransport(reply(true)), { endpoint });
  let spent = 0;
  const ms = await cpuMilliseconds(async () => {
    for (let call = 0; call < calls; call++) {
      await adapter.complete(REQUEST);
      // A budget guard checks the running cost after every call.
      spent = adapter.costUsd();
    }
  });
  if (!(spent > 0)) throw new Error('metering: costUsd() stayed 0');
  return { ms, adapter };
}

/**
 * Times `calls` costUsd() checks in one loop; the best of five loops, after a
 * collection, so a garbage-collection pause is not counted as checking.
 * This and `pricing` keep their timed loops inline on purpose: a shared
 * best-of-five helper taking the loop as a callback made the first
 * measurement up to 30x slower (the loop is not optimised in time).
 */
function checks(adapter: ChatAdapter, calls: number): number {
  (globalThis as { gc?: () => void }).gc?.();
  let best = Number.POSITIVE_INFINITY;
  let sink = 0;
  for (let repeat = 0; repeat < 5; repeat++) {
    const started = performance.now();
    for (let call = 0; call < calls; call++) sink += adapter.costUsd();
    best = Math.min(best, performance.now() - started);
  }
  if (Number.isNaN(sink)) throw new Error('metering: costUsd() returned NaN');
  return best;
}

/** Times pricing every recorded entry once, as the adapter does per call; the best of five loops. */
function pricing(adapter: ChatAdapter, endpoint: ChatEndpoint): number {
  (globalThis as { gc?: () => void }).gc?.();
  let best = Number.POSITIVE_INFINITY;
  let total = 0;
  for (let repeat = 0; repeat < 5; repeat++) {
    const started = performance.now();
    for (const entry of adapter.usage) total += endpoint.cost(entry) ?? 0;
    best = Math.min(best, performance.now() - started);
  }
  if (!(total > 0)) throw new Error('metering: the entries cost nothing');
  return best;
}

/**
 * Runs the metering benchmark: `rounds` interleaved rounds of two runs of
 * `calls` calls each, one recording nothing and one recording and pricing
 * usage with costUsd() checked after every call; then the checks and the
 * pricing are timed on their own.
 */
export async function runMetering(calls: number, rounds: number): Promise<MeteringResult> {
  const endpoint = new ChatEndpoint({
    provider: 'primary',
    baseUrl: 'https://api.primary.example',
    thinking: false,
    prices: priceOf(BENCH_MODEL),
  });
  const gc = (globalThis as { gc?: () => void }).gc;
  const unmeteredRuns: number[] = [];
  const meteredRuns: number[] = [];
  const checkRuns: number[] = [];
  const oneEntryRuns: number[] = [];
  const pricingRuns: number[] = [];
  let totalsAgree = true;
  const oneEntry = new ChatAdapter(stubTransport(reply(true)), { endpoint });
  await oneEntry.complete(REQUEST);
  // One warm-up round, then the measured ones, alternating which run goes first.
  for (let round = -1; round < rounds; round++) {
    for (const kind of roundOrder(['unmetered', 'metered'] as const, Math.max(round, 0))) {
      gc?.();
      if (kind === 'unmetered') {
        const ms = await unmetered(calls);
        if (round >= 0) unmeteredRuns.push(ms);
      } else {
        const run = await metered(calls, endpoint);
        const expected = (endpoint.cost(USAGE) ?? 0) * calls;
        totalsAgree &&=
          run.adapter.usage.length === calls && Math.abs(run.adapter.costUsd() - expected) <= expected * 1e-9;
        const checkMs = checks(run.adapter, calls);
        const oneEntryMs = checks(oneEntry, calls);
        const pricingMs = pricing(run.adapter, endpoint);
        if (round >= 0) {
          pricingRuns.push(pricingMs);
          meteredRuns.push(run.ms);
          checkRuns.push(checkMs);
          oneEntryRuns.push(oneEntryMs);
        }
      }
    }
  }
  const unmeteredMs = median(unmeteredRuns);
  const meteredMs = median(meteredRuns);
  // Differences taken within each round, then the median: rounds run back to back, so drift cancels.
  const differences = (runs: number[]) =>
    median(runs.map((ms, round) => ms - (unmeteredRuns[round] ?? Number.NaN)));
  const meteringMs = differences(meteredRuns);
  const checksMs = median(checkRuns);
  const pricingMs = median(pricingRuns);
  return {
    calls,
    rounds,
    unmeteredMs,
    meteredMs,
    meteringMs,
    checksMs,
    checksOneEntryMs: median(oneEntryRuns),
    pricingMs,
    recordingMs: meteringMs - pricingMs - checksMs,
    totalsAgree,
    targetMs: 50,
  };
}
