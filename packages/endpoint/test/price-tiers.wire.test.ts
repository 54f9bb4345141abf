import type { CallRecord, ChatMessage } from '@switchboard/adapter';
import { BudgetError, createBudget, promptTokenBound } from '@switchboard/budget';
import type { Emulator, EmulatorOptions } from '@switchboard/emulator';
import { nanoUsdOf, PRICES_VERSION } from '@switchboard/prices';
import { CallMeter } from '@switchboard/telemetry';
import { closeTestEmulators, startTestEmulator } from '@switchboard/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { isAdapterResolution, parseConfig, resolveChatEndpoint } from '../src/index.js';

// Issue 33 on the wire: a tiered [prices."id"] entry through resolveChatEndpoint, a budget that
// reserves a long prompt at the tier it reaches, and the local figures reconciled with the
// gateway's own usage.cost, every call across a loopback socket to the emulator.

const KEY = 'price-tiers-wire-key-41d0';
const THRESHOLD = 1_000;
const BASE = { cache: 0.014, input: 0.44, output: 1.32 };
const TIER = { cache: 0.028, input: 0.88, output: 2.64 };
const short: ChatMessage[] = [{ role: 'user', content: 'Which tests cover the release branch?' }];
const long: ChatMessage[] = [
  { role: 'system', content: 'You review pull requests of a payments service. '.repeat(200) },
  { role: 'user', content: 'Summarise the risk of the change in one line.' },
];

const tieredConfig = parseConfig({
  prices: {
    'primary-flash': {
      cache_hit_per_m: BASE.cache,
      input_per_m: BASE.input,
      output_per_m: BASE.output,
      checked_at: '2026-11-20',
      source: 'a negotiated rate card',
      tiers: [
        {
          above_input_tokens: THRESHOLD,
          cache_hit_per_m: TIER.cache,
          input_per_m: TIER.input,
          output_per_m: TIER.output,
        },
      ],
    },
  },
});

afterEach(closeTestEmulators);

function start(options: EmulatorOptions = {}): Promise<Emulator> {
  return startTestEmulator({ key: KEY, ...options });
}

/** The cost of a usage by the tier rule, written out: micro-dollars × 1000, rounded once. */
function expectedNano(usage: Record<string, number>): number {
  const hit = usage.prompt_cache_hit_tokens ?? 0;
  const miss = usage.prompt_cache_miss_tokens ?? 0;
  const prices = hit + miss > THRESHOLD ? TIER : BASE;
  return nanoUsdOf(
    (hit * prices.cache + miss * prices.input + (usage.completion_tokens ?? 0) * prices.output) / 1e6,
  );
}

function onlyCall(calls: readonly CallRecord[]): CallRecord {
  expect(calls).toHaveLength(1);
  return calls[0] as CallRecord;
}

describe('a tiered configuration price through resolveChatEndpoint', () => {
  it('prices a short prompt at the base prices and a long one at the tier, whole; the budget reserves the tier', async () => {
    const emulator = await start();
    const budget = createBudget({ scope: { name: 'tiers', limitUsd: 1 } });
    const resolved = resolveChatEndpoint(tieredConfig, {
      env: { PRIMARY_API_KEY: KEY, PRIMARY_BASE_URL: emulator.url },
      observers: [budget],
    });
    if (!isAdapterResolution(resolved)) throw new Error('expected an adapter route');
    const { client } = resolved;

    const small = onlyCall(
      (await client.complete({ model: 'primary-flash', messages: short, maxTokens: 16 })).calls,
    );
    const smallUsage = small.usage as Record<string, number>;
    expect(
      (smallUsage.prompt_cache_hit_tokens ?? 0) + (smallUsage.prompt_cache_miss_tokens ?? 0),
    ).toBeLessThanOrEqual(THRESHOLD);
    expect(small).toMatchObject({
      costNanoUsd: expectedNano(smallUsage),
      priceSource: 'table',
      pricedAs: 'primary-flash',
      priceCheckedAt: '2026-11-20',
      priceVersion: PRICES_VERSION,
    });

    const big = onlyCall(
      (await client.complete({ model: 'primary-flash', messages: long, maxTokens: 16 })).calls,
    );
    const bigUsage = big.usage as Record<string, number>;
    expect(
      (bigUsage.prompt_cache_hit_tokens ?? 0) + (bigUsage.prompt_cache_miss_tokens ?? 0),
    ).toBeGreaterThan(THRESHOLD);
    expect(big.costNanoUsd).toBe(expectedNano(bigUsage));
    // At the base prices it would have cost about half: the tier bills every token of the call.
    expect(big.costNanoUsd).toBeGreaterThan(
      expectedNano({ ...bigUsage, prompt_cache_hit_tokens: 0, prompt_cache_miss_tokens: THRESHOLD }),
    );

    // The budget's books hold exactly what the records say.
    const [scope] = await budget.usage();
    expect(scope?.spentNanoUsd).toBe((small.costNanoUsd ?? 0) + (big.costNanoUsd ?? 0));
  });

  it('refuses, before sending, a long prompt whose worst case fits at the base prices but not at the tier', async () => {
    const emulator = await start();
    const bound = promptTokenBound(long, undefined);
    expect(bound).toBeGreaterThan(THRESHOLD);
    const atBase = (bound * BASE.input + 16 * BASE.output) / 1e6;
    const atTier = (bound * TIER.input + 16 * TIER.output) / 1e6;
    const budget = createBudget({ scope: { name: 'tight', limitUsd: (atBase + atTier) / 2 } });
    const resolved = resolveChatEndpoint(tieredConfig, {
      env: { PRIMARY_API_KEY: KEY, PRIMARY_BASE_URL: emulator.url },
      observers: [budget],
    });
    if (!isAdapterResolution(resolved)) throw new Error('expected an adapter route');
    const refused = await resolved.client
      .complete({ model: 'primary-flash', messages: long, maxTokens: 16 })
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(BudgetError.isInstance(refused) || refused instanceof BudgetError).toBe(true);
    expect((refused as BudgetError).reason).toBe('spend');
    expect(emulator.requests).toHaveLength(0);
    // A short prompt's worst case is at the base prices, and fits.
    await resolved.client.complete({ model: 'primary-flash', messages: short, maxTokens: 16 });
    expect(emulator.requests).toHaveLength(1);
  });
});

describe("the local figures reconciled with the gateway's usage.cost", () => {
  it('drift by nothing at the shipped prices, and by what a configuration price changes', async () => {
    const emulator = await start({ flavor: 'gateway' });
    const env = { GATEWAY_API_KEY: KEY, GATEWAY_BASE_URL: emulator.url };
    const shipped = new CallMeter();
    const shippedRoute = resolveChatEndpoint({}, { env, observers: [shipped] });
    if (!isAdapterResolution(shippedRoute)) throw new Error('expected an adapter route');
    const call = onlyCall(
      (await shippedRoute.client.complete({ model: 'primary-v4-pro', messages: short })).calls,
    );
    expect(call.priceSource).toBe('table');
    const providerNano = nanoUsdOf(call.providerCostUsd as number);
    expect(shipped.snapshot().reconciliation).toMatchObject({
      calls: 1,
      localNanoUsd: call.costNanoUsd,
      providerNanoUsd: providerNano,
      drift: 0,
      drifting: [],
    });
    // The emulator's bill is the ground truth: the provider's figure is what it billed.
    expect(providerNano).toBe(emulator.bill().totalNanoUsd);

    // A configuration price 10% above each shipped price: the drift shows, the model is named.
    const dear = parseConfig({
      prices: { 'primary-v4-pro': { cache_hit_per_m: 0.0484, input_per_m: 1.452, output_per_m: 4.356 } },
    });
    const meter = new CallMeter();
    const dearRoute = resolveChatEndpoint(dear, { env, observers: [meter] });
    if (!isAdapterResolution(dearRoute)) throw new Error('expected an adapter route');
    const dearCall = onlyCall(
      (await dearRoute.client.complete({ model: 'primary-v4-pro', messages: short })).calls,
    );
    const reconciliation = meter.snapshot().reconciliation;
    const dearProvider = nanoUsdOf(dearCall.providerCostUsd as number);
    expect(reconciliation).toMatchObject({
      calls: 1,
      localNanoUsd: dearCall.costNanoUsd,
      providerNanoUsd: dearProvider,
      drifting: ['primary-v4-pro'],
    });
    expect(reconciliation.drift).toBe(((dearCall.costNanoUsd as number) - dearProvider) / dearProvider);
    expect(reconciliation.drift).toBeCloseTo(0.1, 4);
  });
});
