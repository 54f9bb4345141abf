// budgetMetrics of @switchboard/telemetry over real budgets (memory, a real redis-server, a real
// PostgreSQL), read by the OpenTelemetry SDK's in-memory exporter. It lives here, not in the
// telemetry package: this package already depends on that one for its tests, never the reverse.
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { budgetMetrics, type MeteredBudget } from '@switchboard/telemetry';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Budget, createBudget } from '../src/budget.js';
import type { BudgetStore } from '../src/budget-store.js';
import { attemptInfo, callRecord, DOLLAR_PER_OUTPUT_TOKEN } from './support/attempt-info.js';
import { memoryStores, postgresStores, redisStores } from './support/store-factories.js';
import { until } from './support/until.js';

/** One data point as exported: its attributes and value. */
interface Point {
  readonly attributes: Record<string, unknown>;
  readonly value: number;
}

/** A meter provider whose metrics are read on demand through the SDK's in-memory exporter. */
function otelPipeline() {
  // Delta: each collection holds what was observed or counted since the one before, so a gauge
  // that stopped reporting is seen gone.
  const exporter = new InMemoryMetricExporter(AggregationTemporality.DELTA);
  // Exports only when asked (forceFlush): the test decides when a collection happens.
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 2 ** 31 - 1 });
  const provider = new MeterProvider({ readers: [reader] });
  return {
    meter: provider.getMeter('@switchboard/telemetry'),
    /** Collects now: each metric's points by name. */
    async collect(): Promise<Map<string, Point[]>> {
      await reader.forceFlush();
      const points = new Map<string, Point[]>();
      for (const resource of exporter.getMetrics())
        for (const scope of resource.scopeMetrics)
          for (const metric of scope.metrics)
            points.set(
              metric.descriptor.name,
              metric.dataPoints.map((point) => ({
                attributes: point.attributes,
                value: point.value as number,
              })),
            );
      exporter.reset();
      return points;
    },
    /** The value of `name` for `scope` (with `extra` attributes), or undefined when not exported. */
    valueOf(points: Map<string, Point[]>, name: string, scope: string, extra: Record<string, string> = {}) {
      return points
        .get(name)
        ?.find((point) =>
          Object.entries({ 'switchboard.budget.scope': scope, ...extra }).every(
            ([key, value]) => point.attributes[key] === value,
          ),
        )?.value;
    },
    shutdown: () => provider.shutdown(),
  };
}

type Pipeline = ReturnType<typeof otelPipeline>;

/** Collects until every figure of `expected` (metric name → value for `scope`) is exported as given. */
async function untilExported(otel: Pipeline, scope: string, expected: Record<string, number | undefined>) {
  let last: Record<string, number | undefined> = {};
  await until(
    async () => {
      const points = await otel.collect();
      last = Object.fromEntries(
        Object.keys(expected).map((name) => [name, otel.valueOf(points, name, scope)]),
      );
      return Object.entries(expected).every(([name, value]) => last[name] === value);
    },
    `the gauges of ${scope} showing ${JSON.stringify(expected)} (last: ${JSON.stringify(last)})`,
  );
}

const SPENT = 'switchboard.budget.spent';
const LIMIT = 'switchboard.budget.limit';
const RESERVED = 'switchboard.budget.reserved';
const IN_FLIGHT = 'switchboard.budget.in_flight';
const REFUSALS = 'switchboard.budget.refusals';

describe.each([memoryStores(), redisStores(), postgresStores()])('budgetMetrics on $name', (factory) => {
  beforeAll(() => factory.setUp());
  afterAll(() => factory.tearDown());
  let otel: Pipeline;
  let runs = 0;
  afterEach(() => otel?.shutdown());

  function budgetOn(store: BudgetStore): Budget {
    runs += 1;
    return createBudget({
      store,
      scope: { name: `service-${runs}`, limitUsd: 10 },
      roles: { judge: { limitUsd: 2 }, detector: {} },
      maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
      waitForSettlements: false,
      onWarning: () => {},
    });
  }

  it('shows each scope’s spend, limit, reservations and calls in flight, and counts refusals by scope and reason', async () => {
    otel = otelPipeline();
    const budget = budgetOn(factory.create());
    const root = budget.scope;
    const metrics = budgetMetrics(budget, { meter: otel.meter, intervalMs: 100 });
    await untilExported(otel, root, { [SPENT]: 0, [LIMIT]: 10, [RESERVED]: 0, [IN_FLIGHT]: 0 });
    await untilExported(otel, `${root}/judge`, { [SPENT]: 0, [LIMIT]: 2 });
    // A scope without a limit has no limit point, and its other figures.
    await untilExported(otel, `${root}/detector`, { [LIMIT]: undefined, [SPENT]: 0, [IN_FLIGHT]: 0 });

    const held = await budget.beforeAttempt(attemptInfo({ role: 'judge', maxTokens: 1 }));
    await untilExported(otel, root, { [RESERVED]: 1, [IN_FLIGHT]: 1 });
    await untilExported(otel, `${root}/judge`, { [RESERVED]: 1, [IN_FLIGHT]: 1 });
    await held.end({ record: callRecord(0.75), error: null, mayHaveBeenBilled: true });
    await untilExported(otel, `${root}/judge`, { [SPENT]: 0.75, [RESERVED]: 0, [IN_FLIGHT]: 0 });
    await untilExported(otel, root, { [SPENT]: 0.75, [RESERVED]: 0, [IN_FLIGHT]: 0 });

    // The judge's $2 cannot hold a $3 worst case; the root cannot hold $12.
    await expect(budget.beforeAttempt(attemptInfo({ role: 'judge', maxTokens: 3 }))).rejects.toMatchObject({
      reason: 'spend',
    });
    await expect(budget.beforeAttempt(attemptInfo({ maxTokens: 12 }))).rejects.toMatchObject({
      reason: 'spend',
    });
    await expect(budget.beforeAttempt(attemptInfo({ maxTokens: 12 }))).rejects.toThrow();
    // Counted as they happen: no refresh to wait for (and none before this collection).
    const points = await otel.collect();
    expect(otel.valueOf(points, REFUSALS, `${root}/judge`, { 'error.type': 'spend' })).toBe(1);
    expect(otel.valueOf(points, REFUSALS, root, { 'error.type': 'spend' })).toBe(2);
    expect(points.get(REFUSALS)).toHaveLength(2);

    // Closed: no gauge reports, no refusal counts.
    metrics.close();
    metrics.close();
    await expect(budget.beforeAttempt(attemptInfo({ maxTokens: 12 }))).rejects.toThrow();
    const after = await otel.collect();
    for (const name of [SPENT, LIMIT, RESERVED, IN_FLIGHT]) expect(after.get(name) ?? []).toEqual([]);
    expect(after.get(REFUSALS) ?? []).toEqual([]);
  });

  it('reads the store once per interval, never per collection', async () => {
    otel = otelPipeline();
    const budget = budgetOn(factory.create());
    let reads = 0;
    const counted: MeteredBudget = {
      roles: budget.roles,
      usage: (role) => {
        reads += 1;
        return budget.usage(role);
      },
    };
    const metrics = budgetMetrics(counted, { meter: otel.meter, intervalMs: 2 ** 31 - 1 });
    await untilExported(otel, budget.scope, { [LIMIT]: 10 });
    for (let collection = 0; collection < 5; collection += 1) await otel.collect();
    // The first read only: the root's chain and each of the two roles'.
    expect(reads).toBe(3);
    metrics.close();
  });
});

describe('budgetMetrics', () => {
  let otel: Pipeline;
  afterEach(() => otel?.shutdown());

  it('shows a windowed scope’s current window, with no window attribute: a new window starts at $0', async () => {
    otel = otelPipeline();
    let now = Date.parse('2026-11-28T23:59:00Z');
    const budget = createBudget({
      scope: { name: 'daily', limitUsd: 5, window: 'day' },
      maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
      clock: () => now,
      onWarning: () => {},
    });
    const metrics = budgetMetrics(budget, { meter: otel.meter, intervalMs: 100 });
    const handle = await budget.beforeAttempt(attemptInfo({ maxTokens: 2 }));
    await handle.end({ record: callRecord(1.5), error: null, mayHaveBeenBilled: true });
    await untilExported(otel, 'daily', { [SPENT]: 1.5, [LIMIT]: 5 });
    now = Date.parse('2026-11-29T00:00:00Z');
    await untilExported(otel, 'daily', { [SPENT]: 0, [LIMIT]: 5 });
    const points = await otel.collect();
    expect(points.get(SPENT)?.map((point) => point.attributes)).toEqual([
      { 'switchboard.budget.scope': 'daily' },
    ]);
    metrics.close();
  });

  it('shows no gauges of tenants’ scopes, and keeps the refusals of at most 1,000 scopes apart', async () => {
    otel = otelPipeline();
    const budget = createBudget({
      scope: { name: 'tenanted', limitUsd: 10_000 },
      tenants: { limitUsd: 0.5 },
      maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
      onWarning: () => {},
    });
    const warnings = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    try {
      const metrics = budgetMetrics(budget, { meter: otel.meter, intervalMs: 100 });
      await untilExported(otel, 'tenanted', { [LIMIT]: 10_000, [SPENT]: 0 });
      // Each tenant's $0.50 cannot hold a $1 worst case: 1,001 tenants, one refusal each.
      for (let tenant = 0; tenant <= 1_000; tenant += 1) {
        await expect(
          budget.beforeAttempt(attemptInfo({ tenant: `customer-${tenant}`, maxTokens: 1 })),
        ).rejects.toMatchObject({ reason: 'spend', scope: `tenanted/customer-${tenant}` });
      }
      // One collection after them (each collection holds what was counted since the one before).
      const points = await otel.collect();
      expect(points.get(LIMIT)?.map((point) => point.attributes['switchboard.budget.scope'])).toEqual([
        'tenanted',
      ]);
      const refusals = points.get(REFUSALS) ?? [];
      expect(refusals).toHaveLength(1_001);
      expect(otel.valueOf(points, REFUSALS, 'tenanted/customer-999', { 'error.type': 'spend' })).toBe(1);
      expect(otel.valueOf(points, REFUSALS, 'other', { 'error.type': 'spend' })).toBe(1);
      const cardinality = warnings.mock.calls.filter(
        ([, options]) => (options as { code?: string })?.code === 'SWITCHBOARD_TELEMETRY_CARDINALITY',
      );
      expect(cardinality).toHaveLength(1);
      metrics.close();
    } finally {
      warnings.mockRestore();
    }
  });

  it('keeps the last figures when a read fails, and warns once per run of failures', async () => {
    otel = otelPipeline();
    const budget = createBudget({ scope: { name: 'flaky', limitUsd: 3 }, onWarning: () => {} });
    let failing = false;
    let failures = 0;
    const flaky: MeteredBudget = {
      usage: async () => {
        if (!failing) return budget.usage();
        failures += 1;
        throw new Error('the store is down');
      },
    };
    const warnings = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    try {
      const metrics = budgetMetrics(flaky, { meter: otel.meter, intervalMs: 100 });
      await untilExported(otel, 'flaky', { [LIMIT]: 3 });
      failing = true;
      await until(() => failures >= 3, 'three failed reads');
      await untilExported(otel, 'flaky', { [LIMIT]: 3, [SPENT]: 0 });
      const told = warnings.mock.calls.filter(
        ([, options]) => (options as { code?: string })?.code === 'SWITCHBOARD_BUDGET_METRICS',
      );
      expect(told).toHaveLength(1);
      expect(String(told[0]?.[0])).toMatch(
        /could not be read \(the store is down\); the gauges keep the last figures read/,
      );
      metrics.close();
    } finally {
      warnings.mockRestore();
    }
  });

  it('names a bad budget, meter or interval', () => {
    otel = otelPipeline();
    const budget = createBudget({ scope: { name: 'checked' }, onWarning: () => {} });
    expect(() => budgetMetrics({} as MeteredBudget, { meter: otel.meter })).toThrow(
      new TypeError('budget must be a Budget (an object with a usage() method)'),
    );
    expect(() => budgetMetrics(budget, { meter: {} as typeof otel.meter })).toThrow(
      /^options\.meter must be/,
    );
    for (const intervalMs of [99, 1.5, Number.NaN, 2 ** 31])
      expect(() => budgetMetrics(budget, { meter: otel.meter, intervalMs })).toThrow(
        new RangeError(
          `options.intervalMs must be a whole number of milliseconds from 100 to 2147483647, got ${intervalMs}`,
        ),
      );
  });
});
