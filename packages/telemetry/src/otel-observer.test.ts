import { metrics, trace } from '@opentelemetry/api';
import { DataPointType, MeterProvider, MetricReader, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  GATEWAY_DETECTOR_CALL,
  PRIMARY_JUDGE_CALL,
  RATE_LIMITED_CALL,
  REJECTED_CALL,
} from './__fixtures__/call-records.js';
import { COST_METRIC } from './call-instruments.js';
import { otelObserver } from './otel-observer.js';

const PRIMARY = { provider: 'primary', baseUrl: 'https://api.primary.example', thinking: false };
const ROUTE = 'primary https://api.primary.example';

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

async function observed(
  ...records: Parameters<NonNullable<Awaited<ReturnType<typeof otelObserver>>['afterCall']>>[0][]
) {
  const observer = await otelObserver({ endpoint: PRIMARY });
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
    it('emits a CLIENT span "chat {model}" with every GenAI and Switchboard attribute of the call', async () => {
      const [span] = await observed(PRIMARY_JUDGE_CALL);
      expect(span?.name).toBe('chat primary-flash');
      expect(span?.kind).toBe(2); // SpanKind.CLIENT
      expect(span?.instrumentationScope.name).toBe('@switchboard/telemetry');
      expect(span?.attributes).toEqual({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'primary',
        'gen_ai.request.model': 'primary-flash',
        'gen_ai.response.model': 'primary-flash',
        'gen_ai.response.id': 'chatcmpl-7f3a',
        'gen_ai.response.finish_reasons': ['stop'],
        'gen_ai.usage.input_tokens': 1200,
        'gen_ai.usage.output_tokens': 300,
        'gen_ai.usage.cache_read.input_tokens': 1024,
        'gen_ai.usage.reasoning.output_tokens': 120,
        'gen_ai.usage.cost.amount': 0.00021,
        'gen_ai.usage.cost.currency': 'USD',
        'gen_ai.usage.cost.source': 'local',
        'switchboard.route': ROUTE,
        'switchboard.role': 'judge',
        'switchboard.attempts': 2,
        'switchboard.price.version': '2026.11.1',
        'switchboard.price.band': 'off-peak',
      });
      expect(span?.status.code).toBe(0); // UNSET
    });

    it('times the span from the record: at - durationMs .. at', async () => {
      const [span] = await observed(PRIMARY_JUDGE_CALL);
      const toMs = ([seconds, nanos]: [number, number]) => seconds * 1000 + nanos / 1e6;
      expect(toMs(span?.endTime as [number, number])).toBe(Date.parse('2026-11-23T08:00:10.500Z'));
      expect(toMs(span?.startTime as [number, number])).toBe(Date.parse('2026-11-23T08:00:09.000Z'));
    });

    it("says the cost came from the provider when it did, and reads OpenAI's cached_tokens", async () => {
      const [span] = await observed(GATEWAY_DETECTOR_CALL);
      expect(span?.attributes).toMatchObject({
        'gen_ai.usage.cost.source': 'provider',
        'gen_ai.usage.cost.amount': 0.0012,
        'gen_ai.usage.input_tokens': 2000,
        'gen_ai.usage.cache_read.input_tokens': 1500,
        'switchboard.role': 'detector',
      });
      expect(span?.attributes).not.toHaveProperty('switchboard.price.band');
      expect(span?.attributes).not.toHaveProperty('gen_ai.response.id');
    });

    it('marks a failure with error.type and an error status, without usage or cost', async () => {
      const spans: ReadableSpan[] = await observed(RATE_LIMITED_CALL, REJECTED_CALL);
      expect(spans.map((span) => span.attributes['error.type'])).toEqual(['rate_limited', 'model_rejected']);
      expect(spans.map((span) => span.status)).toEqual([
        { code: 2, message: 'rate_limited' },
        { code: 2, message: 'model_rejected' },
      ]);
      expect(spans[0]?.attributes).toEqual({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'primary',
        'gen_ai.request.model': 'primary-flash',
        'switchboard.route': ROUTE,
        'switchboard.attempts': 3,
        'error.type': 'rate_limited',
      });
    });

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
    it('records token usage by type, duration in seconds and a USD counter by role, model and route', async () => {
      await observed(PRIMARY_JUDGE_CALL, GATEWAY_DETECTOR_CALL, REJECTED_CALL);
      const { resourceMetrics, errors } = await reader.collect();
      expect(errors).toEqual([]);

      const tokens = metricPoints(resourceMetrics, 'gen_ai.client.token.usage');
      expect(tokens.metric?.descriptor.unit).toBe('{token}');
      expect(tokens.metric?.dataPointType).toBe(DataPointType.HISTOGRAM);
      const tokenSums = tokens.points.map((point) => [
        point.attributes['gen_ai.request.model'],
        point.attributes['gen_ai.token.type'],
        (point.value as { sum: number }).sum,
      ]);
      expect(tokenSums).toEqual(
        expect.arrayContaining([
          ['primary-flash', 'input', 1200],
          ['primary-flash', 'output', 300],
          ['primary-v4-pro', 'input', 2000],
          ['primary-v4-pro', 'output', 500],
        ]),
      );
      expect(tokenSums).toHaveLength(4);
      expect(tokens.points[0]?.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'primary',
      });

      const duration = metricPoints(resourceMetrics, 'gen_ai.client.operation.duration');
      expect(duration.metric?.descriptor.unit).toBe('s');
      const durations = duration.points.map((point) => [
        point.attributes['gen_ai.request.model'],
        point.attributes['error.type'],
        (point.value as { sum: number }).sum,
      ]);
      expect(durations).toEqual(
        expect.arrayContaining([
          ['primary-flash', undefined, 1.5],
          ['primary-v4-pro', undefined, 0.8],
          ['primary-old', 'model_rejected', 0.04],
        ]),
      );

      const cost = metricPoints(resourceMetrics, COST_METRIC);
      expect(cost.metric?.descriptor.unit).toBe('USD');
      expect(cost.points.map((point) => [point.attributes, point.value])).toEqual(
        expect.arrayContaining([
          [
            {
              'switchboard.role': 'judge',
              'gen_ai.request.model': 'primary-flash',
              'switchboard.route': ROUTE,
            },
            0.00021,
          ],
          [
            {
              'switchboard.role': 'detector',
              'gen_ai.request.model': 'primary-v4-pro',
              'switchboard.route': ROUTE,
            },
            0.0012,
          ],
        ]),
      );
      expect(cost.points).toHaveLength(2);
    });

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
});
