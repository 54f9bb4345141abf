import { metrics } from '@opentelemetry/api';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { describe, expect, it } from 'vitest';
import { type BudgetMetricsOptions, budgetMetrics } from './budget-metrics.js';
import type { MeteredBudget } from './budget-snapshot.js';
import type { OtelGaugeMeter } from './otel-gauge-api.js';

// Compiled by the package's typecheck (tsc over src): the real API's and SDK's meters are accepted as they are.
describe('the types of budgetMetrics', () => {
  it('accept the API’s meter and an SDK meter', () => {
    const apiMeter: OtelGaugeMeter = metrics.getMeter('x');
    const provider = new MeterProvider();
    const options: BudgetMetricsOptions = { meter: provider.getMeter('x', '1.0.0'), intervalMs: 60_000 };
    const budget: MeteredBudget = { usage: async () => [] };
    const exported = budgetMetrics(budget, options);
    exported.close();
    expect(typeof apiMeter.createObservableGauge).toBe('function');
  });
});
