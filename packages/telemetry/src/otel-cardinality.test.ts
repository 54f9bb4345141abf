import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PRIMARY_JUDGE_CALL } from './__fixtures__/call-records.js';
import { METRIC_VALUE_CAP } from './call-instruments.js';
import type { OtelConventions } from './otel-conventions.js';
import { otelObserver } from './otel-observer.js';
import type { TelemetryRecord } from './telemetry-record.js';

class CollectingReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

// The SDK's default cardinality limit per metric: past it, points go to one overflow series.
const SDK_SERIES_CAP = 2000;
const OVERFLOW = 'otel.metric.overflow';

afterEach(() => {
  vi.restoreAllMocks();
});

describe.each<OtelConventions>(['v1.41.0', 'gen_ai_latest_experimental'])(
  'metric cardinality, %s',
  (conventions) => {
    it('10,000 calls with distinct reply model ids and 5,000 roles stay under the series cap', async () => {
      const warnings = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
      const reader = new CollectingReader();
      const observer = await otelObserver({
        endpoint: { provider: 'gateway', baseUrl: 'https://gateway.example/api/v1' },
        conventions,
        meterProvider: new MeterProvider({ readers: [reader] }),
      });
      for (let call = 0; call < 10_000; call += 1) {
        const record: TelemetryRecord = {
          ...PRIMARY_JUDGE_CALL,
          responseModel: `primary-flash-${call}-${'x'.repeat(call % 300)}`,
          responseId: `chatcmpl-${call}`,
          role: `role-${call % 5000}`,
          route: `route-${call % 5000}`,
        };
        observer.afterCall?.(record);
      }
      const { resourceMetrics, errors } = await reader.collect();
      expect(errors).toEqual([]);
      const collected = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics);
      expect(collected.length).toBeGreaterThanOrEqual(3);
      for (const metric of collected) {
        expect(metric.dataPoints.length, metric.descriptor.name).toBeLessThan(SDK_SERIES_CAP);
        for (const point of metric.dataPoints) {
          expect(point.attributes[OVERFLOW], metric.descriptor.name).toBeUndefined();
          expect(point.attributes['gen_ai.response.model'], metric.descriptor.name).toBeUndefined();
        }
      }
      const cost = collected.find((metric) => metric.descriptor.name === 'switchboard.client.cost');
      const roles = new Set(cost?.dataPoints.map((point) => point.attributes['switchboard.role']));
      expect(roles.size).toBe(METRIC_VALUE_CAP + 1);
      expect(roles.has('other')).toBe(true);
      expect(roles.has('role-0')).toBe(true);
      // One warning per bounded attribute (roles and routes), not one per call.
      const cardinality = warnings.mock.calls.filter(([, options]) =>
        JSON.stringify(options).includes('SWITCHBOARD_TELEMETRY_CARDINALITY'),
      );
      expect(cardinality.map(([message]) => String(message).split(' values')[0])).toEqual([
        `more than ${METRIC_VALUE_CAP} distinct switchboard.role`,
        `more than ${METRIC_VALUE_CAP} distinct switchboard.route`,
      ]);
    }, 60_000);
  },
);
