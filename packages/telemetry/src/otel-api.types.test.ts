import * as api from '@opentelemetry/api';
import { metrics, trace } from '@opentelemetry/api';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import type { OtelApi, OtelMeter, OtelMeterProvider, OtelTracer } from './otel-api.js';
import { createOtelObserver, type OtelObserverOptions, otelObserver } from './otel-observer.js';

// Compiled by the package's typecheck (tsc over src): the real API's objects are accepted as they are.
describe('the OpenTelemetry types', () => {
  it('accept the real API module, tracers, meters and meter providers', async () => {
    const options: OtelObserverOptions = {
      tracer: trace.getTracer('x'),
      meterProvider: metrics.getMeterProvider(),
    };
    const fromApi = createOtelObserver(api, options);
    const module: OtelApi = api;
    const sdkTracer: OtelTracer = new BasicTracerProvider().getTracer('x', '1.0.0', { schemaUrl: 'u' });
    const sdkProvider: OtelMeterProvider = new MeterProvider();
    const meter: OtelMeter = metrics.getMeter('x');
    const observer = await otelObserver({ tracer: sdkTracer, meterProvider: sdkProvider });
    expect([typeof fromApi.afterCall, typeof observer.afterCall]).toEqual(['function', 'function']);
    expect([module.SpanKind.CLIENT, typeof meter.createCounter]).toEqual([api.SpanKind.CLIENT, 'function']);
  });
});
