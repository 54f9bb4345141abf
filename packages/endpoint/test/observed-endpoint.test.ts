import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallObserver, ChatMessage, ObservedEndpoint } from '@switchboard/adapter';
import {
  CallJournal,
  CallMeter,
  createOtelObserver,
  type OtelApi,
  type OtelAttributes,
} from '@switchboard/telemetry';
import { describe, expect, it } from 'vitest';
import type { SwitchboardConfig } from '../src/index.js';
import { emulatedEndpoint } from './support/emulated-endpoint.js';

// Observers passed through resolveChatEndpoint learn the endpoint they observe (their
// `withEndpoint` hook), over a real loopback socket to the emulator.

const KEY = 'observed-endpoint-key-4e2b';
const question: ChatMessage[] = [{ role: 'user', content: 'Which step of the build failed?' }];

/** The parts of `@opentelemetry/api` the observer calls, keeping every span's attributes. */
function capturingApi(): OtelApi & { spans: OtelAttributes[] } {
  const spans: OtelAttributes[] = [];
  const noMeter = { constructor: { name: 'NoopMeterProvider' }, getMeter: () => ({}) as never };
  return {
    spans,
    SpanKind: { CLIENT: 2 },
    SpanStatusCode: { ERROR: 2 },
    metrics: { getMeterProvider: () => noMeter },
    trace: {
      getTracerProvider: () => ({
        getTracer: () => ({
          startSpan: (_name, options) => {
            const attributes: OtelAttributes = { ...options?.attributes };
            spans.push(attributes);
            return {
              isRecording: () => true,
              setAttributes: (more: OtelAttributes) => Object.assign(attributes, more),
              setStatus: () => undefined,
              end: () => undefined,
            };
          },
        }),
      }),
    },
  };
}

describe('observers attached by resolveChatEndpoint', () => {
  const { emulator, resolveWith } = emulatedEndpoint(KEY);

  it('tells each withEndpoint hook the endpoint (never the key) and attaches what it returns', async () => {
    const told: ObservedEndpoint[] = [];
    const records: string[] = [];
    const hooked: CallObserver = {
      withEndpoint(endpoint) {
        told.push(endpoint);
        return { afterCall: (record) => records.push(`${endpoint.provider} ${record.model}`) };
      },
      afterCall: () => records.push('the original, which should not be attached'),
    };
    const { client, endpoint } = resolveWith([hooked]);
    await client.complete({ model: 'primary-flash', messages: question });
    expect(told).toEqual([
      { provider: 'primary', baseUrl: endpoint.baseUrl, thinking: false, providerName: null },
    ]);
    expect(JSON.stringify(told)).not.toContain(KEY);
    expect(records).toEqual(['primary primary-flash']);
  });

  it('gives a journal and a meter made without an endpoint the resolved one: no null endpoint', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'observed-endpoint-')), 'run.jsonl');
    const journal = new CallJournal(path, { exitHooks: false });
    const meter = new CallMeter();
    const { client, endpoint } = resolveWith([journal, meter]);
    await client.forRole('judge').complete({ model: 'primary-flash', messages: question });
    await client.bounded(16).complete({ model: 'primary-flash', messages: question });
    await journal.close();
    const lines = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect(line.endpoint).toEqual({ provider: 'primary', baseUrl: endpoint.baseUrl, thinking: false });
    }
    expect(Object.keys(meter.snapshot().byEndpoint)).toEqual([`primary ${endpoint.baseUrl}`]);
  });

  it("names the spans' provider and server from the endpoint and the configuration's provider_name", async () => {
    const api = capturingApi();
    const config: SwitchboardConfig = {
      telemetry: { provider_name: { primary: 'vendor.one', gateway: 'x' } },
    };
    const { client } = resolveWith([createOtelObserver(api)], config);
    await client.complete({ model: 'primary-flash', messages: question, jsonObject: true });
    const port = Number(new URL(emulator().url).port);
    expect(api.spans).toHaveLength(1);
    expect(api.spans[0]).toMatchObject({
      'gen_ai.provider.name': 'vendor.one',
      'server.address': '127.0.0.1',
      'server.port': port,
      'gen_ai.output.type': 'json',
      'switchboard.route': `primary ${emulator().url}`,
    });
  });

  it('keeps an endpoint given in code, and falls back to switchboard.<provider> without a configured name', async () => {
    const api = capturingApi();
    const mine = { provider: 'custom', baseUrl: 'https://llm.internal.example:8443', thinking: false };
    const { client } = resolveWith([createOtelObserver(api, { endpoint: mine }), createOtelObserver(api)]);
    await client.complete({ model: 'primary-flash', messages: question });
    expect(
      api.spans.map((span) => [span['gen_ai.provider.name'], span['server.address'], span['server.port']]),
    ).toEqual([
      ['switchboard.custom', 'llm.internal.example', 8443],
      ['switchboard.primary', '127.0.0.1', Number(new URL(emulator().url).port)],
    ]);
  });
});
