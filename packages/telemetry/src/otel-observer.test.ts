import { metrics, trace } from '@opentelemetry/api';
import { DataPointType, MeterProvider, MetricReader, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CUT_STREAM_CALL,
  GATEWAY_DETECTOR_CALL,
  PRIMARY_JUDGE_CALL,
  RATE_LIMITED_CALL,
} from './__fixtures__/call-records.js';
import { COST_METRIC } from './call-instruments.js';
import type { OtelConventions } from './otel-conventions.js';
import { otelObserver } from './otel-observer.js';
import type { TelemetryRecord } from './telemetry-record.js';

const PRIMARY = { provider: 'primary', baseUrl: 'https://api.primary.example', thinking: false };
const _ROUTE = 'primary https://api.primary.example';

/** A reader collected on demand (the SDK's own collection path, no timer). */
class CollectingReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

let exporter: InMemorySpanExporter;
let reader: CollectingReader;

beforeEach(() => {
  exporter = new InMemorySpanExporter();
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  );
  reader = new CollectingReader();
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
});

afterEach(() => {
  trace.disable();
  metrics.disable();
});

type ObservedRecord = Parameters<NonNullable<Awaited<ReturnType<typeof otelObserver>>['afterCall']>>[0];

async function observed(...records: ObservedRecord[]) {
  return observedIn('v1.41.0', ...records);
}

async function observedIn(conventions: OtelConventions, ...records: ObservedRecord[]) {
  const observer = await otelObserver({ endpoint: PRIMARY, conventions });
  for (const record of records) observer.afterCall?.(record);
  return exporter.getFinishedSpans();
}

function metricPoints(collected: ResourceMetrics, name: string) {
  const metric = collected.scopeMetrics
    .flatMap((scope) => scope.metrics)
    .find((m) => m.descriptor.name === name);
  return { metric, points: metric?.dataPoints ?? [] };
}

describe('otelObserver', () => {
  describe('spans', () => {
    it('times the span from the record: at - durationMs .. at', async () => {
      const [span] = await observed(PRIMARY_JUDGE_CALL);
      const toMs = ([seconds, nanos]: [number, number]) => seconds * 1000 + nanos / 1e6;
      expect(toMs(span?.endTime as [number, number])).toBe(Date.parse('2026-11-23T08:00:10.500Z'));
      expect(toMs(span?.startTime as [number, number])).toBe(Date.parse('2026-11-23T08:00:09.000Z'));
    });

    it("puts the provider's own cost in llm.cost.total when the reply carried one, and reads OpenAI's cached_tokens", async () => {
      const [span] = await observedIn('gen_ai_latest_experimental', GATEWAY_DETECTOR_CALL);
      expect(span?.attributes).toMatchObject({
        'llm.cost.total': 0.0012,
        'gen_ai.usage.input_tokens': 2000,
        'gen_ai.usage.cache_read.input_tokens': 1500,
        'switchboard.role': 'detector',
      });
      expect(span?.attributes).not.toHaveProperty('switchboard.price.band');
      expect(span?.attributes).not.toHaveProperty('gen_ai.response.id');
    });

    it.each(['v1.41.0', 'gen_ai_latest_experimental'] as const)(
      'in the %s mode, puts the cost in llm.cost.total, never under gen_ai.usage. where a backend reads token counts, and never an estimate',
      async (mode) => {
        const [priced] = await observedIn(mode, GATEWAY_DETECTOR_CALL);
        expect(priced?.attributes['llm.cost.total']).toBe(0.0012);
        // Langfuse's rule: every gen_ai.usage.* attribute but gen_ai.usage.cost (and llm.token_count.*) is a
        // token count. Each such attribute here must be one of the call's token counts.
        const readAsTokens = Object.entries(priced?.attributes ?? {}).filter(
          ([name]) =>
            (name.startsWith('gen_ai.usage.') && name !== 'gen_ai.usage.cost') ||
            name.startsWith('llm.token_count.'),
        );
        expect(Object.fromEntries(readAsTokens)).toEqual({
          'gen_ai.usage.input_tokens': 2000,
          'gen_ai.usage.output_tokens': 500,
          'gen_ai.usage.cache_read.input_tokens': 1500,
        });
        expect(priced?.attributes['switchboard.cost.amount']).toBeGreaterThan(0);
        exporter.reset();
        const [estimate] = await observedIn(mode, CUT_STREAM_CALL);
        expect(CUT_STREAM_CALL.priceSource).toBe('estimate');
        expect(estimate?.attributes).not.toHaveProperty('llm.cost.total');
        expect(estimate?.attributes).toMatchObject({
          'switchboard.cost.amount': 0.00009,
          'switchboard.price.source': 'estimate',
        });
      },
    );

    it('starts recording when a provider is registered after the observer was made', async () => {
      trace.disable();
      const observer = await otelObserver({ endpoint: PRIMARY });
      observer.afterCall?.(PRIMARY_JUDGE_CALL);
      trace.setGlobalTracerProvider(
        new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
      );
      observer.afterCall?.(GATEWAY_DETECTOR_CALL);
      expect(exporter.getFinishedSpans().map((span) => span.name)).toEqual(['chat primary-v4-pro']);
    });
  });

  describe('metrics', () => {
    it('uses a meter provider registered after the observer was made', async () => {
      metrics.disable();
      const observer = await otelObserver({ endpoint: PRIMARY });
      observer.afterCall?.(PRIMARY_JUDGE_CALL);
      const late = new CollectingReader();
      metrics.setGlobalMeterProvider(new MeterProvider({ readers: [late] }));
      observer.afterCall?.(GATEWAY_DETECTOR_CALL);
      const { resourceMetrics } = await late.collect();
      const cost = metricPoints(resourceMetrics, COST_METRIC);
      expect(cost.points.map((point) => point.value)).toEqual([0.0012]);
    });
  });

  describe('without an SDK', () => {
    it('reads nothing of a record while neither a tracer nor a meter provider is registered', async () => {
      trace.disable();
      metrics.disable();
      const observer = await otelObserver({ endpoint: PRIMARY });
      let reads = 0;
      const counted = new Proxy(PRIMARY_JUDGE_CALL, {
        get(target, key, receiver) {
          reads += 1;
          return Reflect.get(target, key, receiver);
        },
      });
      observer.afterCall?.(counted);
      expect(reads).toBe(0);
      trace.setGlobalTracerProvider(
        new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
      );
      observer.afterCall?.(counted);
      expect(reads).toBeGreaterThan(0);
      expect(exporter.getFinishedSpans().map((span) => span.name)).toEqual(['chat primary-flash']);
    });

    it('records metrics with no tracer provider registered, and starts no span', async () => {
      trace.disable();
      const observer = await otelObserver({ endpoint: PRIMARY });
      observer.afterCall?.(GATEWAY_DETECTOR_CALL);
      const { resourceMetrics } = await reader.collect();
      expect(metricPoints(resourceMetrics, COST_METRIC).points.map((point) => point.value)).toEqual([0.0012]);
      expect(exporter.getFinishedSpans()).toEqual([]);
    });
  });

  describe('bounds and edge cases', () => {
    it('cuts a 4 MiB reply id and a 1 MiB model id on spans and metric points', async () => {
      const hugeModel = 'm'.repeat(1 << 20);
      const observer = await otelObserver({ endpoint: PRIMARY });
      const record: TelemetryRecord = {
        ...PRIMARY_JUDGE_CALL,
        model: hugeModel,
        responseModel: hugeModel,
        responseId: 'i'.repeat(4 << 20),
        role: 'r'.repeat(1 << 20),
        finishReasons: Array.from({ length: 10_000 }, () => 'stop'),
      };
      observer.afterCall?.(record);
      const [span] = exporter.getFinishedSpans();
      expect(span?.name).toHaveLength('chat '.length + 256);
      for (const name of [
        'gen_ai.request.model',
        'gen_ai.response.model',
        'gen_ai.response.id',
        'switchboard.role',
      ]) {
        expect(String(span?.attributes[name])).toHaveLength(256);
      }
      expect(span?.attributes['gen_ai.response.finish_reasons']).toHaveLength(16);
      const { resourceMetrics } = await reader.collect();
      const points = resourceMetrics.scopeMetrics.flatMap((scope) =>
        scope.metrics.flatMap((metric): { attributes: object }[] => metric.dataPoints),
      );
      expect(points.length).toBeGreaterThan(0);
      for (const point of points) {
        for (const value of Object.values(point.attributes))
          expect(String(value).length).toBeLessThanOrEqual(256);
      }
    });

    it('records a non-finite or negative duration as 0 on the span and the metric alike, never NaN', async () => {
      const observer = await otelObserver({ endpoint: PRIMARY });
      observer.afterCall?.({ ...PRIMARY_JUDGE_CALL, durationMs: Number.NaN });
      observer.afterCall?.({ ...PRIMARY_JUDGE_CALL, durationMs: -5 });
      for (const span of exporter.getFinishedSpans()) expect(span.duration).toEqual([0, 0]);
      const { resourceMetrics } = await reader.collect();
      const duration = metricPoints(resourceMetrics, 'gen_ai.client.operation.duration');
      expect(duration.points.map((point) => (point.value as { sum: number; count: number }).sum)).toEqual([
        0,
      ]);
      expect(duration.metric?.dataPointType).toBe(DataPointType.HISTOGRAM);
    });

    it('sets an error status without a description when the failure had no HTTP status', async () => {
      const observer = await otelObserver({ endpoint: PRIMARY });
      observer.afterCall?.({
        ...RATE_LIMITED_CALL,
        error: { kind: 'timeout', status: null, degradation: false },
      });
      expect(exporter.getFinishedSpans()[0]?.status).toEqual({ code: 2 });
    });

    it('takes providerName as the convention lists vendors, and refuses another shape naming the option', async () => {
      const observer = await otelObserver({ endpoint: PRIMARY, providerName: 'vendor.cloud_ai' });
      observer.afterCall?.(PRIMARY_JUDGE_CALL);
      expect(exporter.getFinishedSpans()[0]?.attributes['gen_ai.provider.name']).toBe('vendor.cloud_ai');
      await expect(otelObserver({ providerName: 'Vendor Cloud' })).rejects.toThrow(
        /options\.providerName must be a gen_ai\.provider\.name value .*got "Vendor Cloud"/,
      );
      await expect(otelObserver({ conventions: 'v2' as never })).rejects.toThrow(
        /options\.conventions must be/,
      );
      const unnamed = await otelObserver();
      unnamed.afterCall?.(PRIMARY_JUDGE_CALL);
      expect(exporter.getFinishedSpans()[1]?.attributes['gen_ai.provider.name']).toBe('switchboard.unknown');
    });
  });
});
