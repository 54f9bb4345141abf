import { describe, expect, it } from 'vitest';
import { answer, PlainTransport, RawTransport, reply } from '../test/support/raw-transport.js';
import type { CallRecord } from './call-record.js';
import { ChatAdapter } from './chat-adapter.js';
import type { CompleteRequest } from './chat-client.js';
import { ChatError } from './chat-error.js';
import type { CostModel, PricedCall } from './cost-model.js';

const request: CompleteRequest = { model: 'primary-v4-pro', messages: [{ role: 'user', content: 'hi' }] };

/** One unit per completion token, as an endpoint priced for `primary-flash`. */
const perToken: CostModel = {
  pricingModel: 'primary-flash',
  cost: (usage) => (usage as { completion_tokens?: number }).completion_tokens ?? null,
};

describe('ChatAdapter call records', () => {
  it('makes one frozen record per raw call with the model as sent, the usage copy and the endpoint price', async () => {
    const before = Date.now();
    const adapter = new ChatAdapter(new RawTransport([answer('a', { completion_tokens: 5 })]), {
      endpoint: perToken,
    });
    const response = await adapter.complete(request);
    expect(response.calls).toHaveLength(1);
    const record = response.calls[0];
    expect(record).toMatchObject({
      model: 'primary-v4-pro',
      usage: { completion_tokens: 5 },
      costUsd: 5,
      pricedAs: 'primary-flash',
      priceSource: 'endpoint',
      tariff: null,
      attempts: 1,
      role: null,
      error: null,
    });
    expect(record?.usage).toBe(adapter.usage[0]);
    expect(Date.parse(record?.at ?? '')).toBeGreaterThanOrEqual(before - 1);
    expect(record?.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(record?.durationMs).toBeGreaterThanOrEqual(0);
    expect(Object.isFrozen(record)).toBe(true);
    expect(Object.isFrozen(response.calls)).toBe(true);
    expect(response.costUsd).toBe(5);
  });

  it('records the request facts: JSON mode, the max_tokens sent and the temperature (0 when none was given)', async () => {
    const transport = new RawTransport([answer('{}'), answer('{}'), answer('x'), answer('y')]);
    const adapter = new ChatAdapter(transport);
    const json = await adapter.complete({ ...request, jsonObject: true, temperature: 0.7, maxTokens: 300 });
    expect(json.calls[0]).toMatchObject({ jsonObject: true, maxTokens: 300, temperature: 0.7 });
    const plain = await adapter.complete(request);
    expect(plain.calls[0]).toMatchObject({ jsonObject: false, maxTokens: null, temperature: 0 });
    // A bounded copy's cap is what went on the wire, the smaller of the two.
    const bounded = await adapter.bounded(64).complete({ ...request, maxTokens: 500 });
    expect(bounded.calls[0]).toMatchObject({ maxTokens: 64, temperature: 0, jsonObject: false });
    const failing = new ChatAdapter(
      new RawTransport([new ChatError({ kind: 'server', message: 'down', status: 503 })]),
    );
    const seen: CallRecord[] = [];
    failing.observe({ afterCall: (record) => seen.push(record) });
    await expect(failing.complete({ ...request, jsonObject: true, temperature: 1 })).rejects.toThrow();
    expect(seen[0]).toMatchObject({ jsonObject: true, temperature: 1, maxTokens: null });
  });

  it('records the reply facts: its id, the model it names and the first choice’s finish reason', async () => {
    const adapter = new ChatAdapter(
      new RawTransport([
        reply(
          { role: 'assistant', content: 'a' },
          {
            id: 'chatcmpl-42',
            model: 'primary-flash-0815',
            choices: [{ message: {}, finish_reason: 'length' }],
          },
        ),
        { choices: [{ message: { content: 'b' }, finish_reason: 7 }], id: 42 },
      ]),
    );
    const first = await adapter.complete(request);
    expect(first.calls[0]).toMatchObject({
      responseId: 'chatcmpl-42',
      responseModel: 'primary-flash-0815',
      finishReason: 'length',
    });
    const second = await adapter.complete(request);
    expect(second.calls[0]).toMatchObject({ responseId: null, responseModel: null, finishReason: null });
  });

  it('records null reply facts for a failed call, and the finish reason a plain transport’s message carries', async () => {
    const failed = new ChatAdapter(new RawTransport([new Error('socket hang up')]));
    const records: CallRecord[] = [];
    failed.observe({ afterCall: (record) => records.push(record) });
    await expect(failed.complete(request)).rejects.toThrow('socket hang up');
    expect(records[0]).toMatchObject({ responseId: null, responseModel: null, finishReason: null });
    const plain = new ChatAdapter(new PlainTransport([{ content: 'a', finish_reason: 'stop' }]));
    expect((await plain.complete(request)).calls[0]).toMatchObject({
      responseId: null,
      responseModel: null,
      finishReason: 'stop',
    });
  });

  it('reports pricedAs null when the endpoint names no pricing model', async () => {
    const adapter = new ChatAdapter(new RawTransport([answer('a', { completion_tokens: 1 })]), {
      endpoint: { cost: () => 2 },
    });
    const response = await adapter.complete(request);
    expect(response.calls[0]).toMatchObject({ costUsd: 2, pricedAs: null, priceSource: 'endpoint' });
  });

  it('prices with priceCall when the cost model has it, passing the model, the usage copy and the reply time', async () => {
    const seen: PricedCall[] = [];
    const endpoint: CostModel = {
      cost: () => 999,
      priceCall: (call) => {
        seen.push(call);
        return {
          costUsd: 0.25,
          pricedAs: call.model,
          priceSource: 'table',
          tariff: { entry: '2026-01', band: 'peak' },
          providerCostUsd: 0.3,
          priceVersion: '1.2.0',
        };
      },
    };
    const adapter = new ChatAdapter(new RawTransport([answer('a', { completion_tokens: 1, cost: 0.3 })]), {
      endpoint,
    });
    const response = await adapter.complete(request);
    const record = response.calls[0];
    expect(record).toMatchObject({
      costUsd: 0.25,
      pricedAs: 'primary-v4-pro',
      priceSource: 'table',
      tariff: { entry: '2026-01', band: 'peak' },
      providerCostUsd: 0.3,
      priceVersion: '1.2.0',
    });
    expect(seen[0]?.model).toBe('primary-v4-pro');
    expect(seen[0]?.usage).toBe(adapter.usage[0]);
    expect(seen[0]?.at.toISOString()).toBe(record?.at);
    expect(adapter.costUsd()).toBe(0.25);
  });

  it('records the checked date of the entry that priced the call (priceCheckedAt), null otherwise, always set', async () => {
    const dated: CostModel = {
      cost: () => null,
      priceCall: (call) => ({
        costUsd: call.model === 'unpriced' ? null : 0.25,
        pricedAs: call.model,
        priceSource: 'table',
        tariff: null,
        priceCheckedAt: '2026-11-22',
      }),
    };
    const calls = async (endpoint: CostModel, model = 'primary-v4-pro') =>
      (
        await new ChatAdapter(new RawTransport([answer('a', { completion_tokens: 1 })]), {
          endpoint,
        }).complete({
          ...request,
          model,
        })
      ).calls;
    expect((await calls(dated))[0]?.priceCheckedAt).toBe('2026-11-22');
    // No cost, no entry priced it: no date, whatever the cost model said.
    expect((await calls(dated, 'unpriced'))[0]?.priceCheckedAt).toBeNull();
    // A cost model that says nothing of dates, or something that is not an ISO date.
    expect((await calls(perToken))[0]).toHaveProperty('priceCheckedAt', null);
    const odd: CostModel = {
      ...dated,
      priceCall: (call) => ({ ...dated.priceCall?.(call), priceCheckedAt: 7 }) as never,
    };
    expect((await calls(odd))[0]?.priceCheckedAt).toBeNull();
    // A failed call: set, null.
    const failed = new ChatAdapter(
      new RawTransport([new ChatError({ kind: 'server', status: 500, message: 'x' })]),
      {
        endpoint: dated,
      },
    );
    const records: CallRecord[] = [];
    failed.observe({ afterCall: (record) => records.push(record) });
    await expect(failed.complete(request)).rejects.toThrow();
    expect(records.at(-1)).toHaveProperty('priceCheckedAt', null);
  });

  it('records a null cost for an unpriced call and a null response cost when none was priced', async () => {
    const adapter = new ChatAdapter(new RawTransport([answer('a', { prompt_tokens: 1 })]), {
      endpoint: perToken,
    });
    const response = await adapter.complete(request);
    expect(response.calls[0]).toMatchObject({ costUsd: null, pricedAs: null, priceSource: null });
    expect(response.costUsd).toBeNull();
  });

  it('records usage null and an estimate (never $0) for a reply without usage and on the plain path', async () => {
    const raw = await new ChatAdapter(new RawTransport([answer('a')]), { endpoint: perToken }).complete(
      request,
    );
    const plain = await new ChatAdapter(new PlainTransport([{ content: 'p' }]), {
      endpoint: perToken,
    }).complete(request);
    for (const response of [raw, plain]) {
      expect(response.calls).toHaveLength(1);
      expect(response.calls[0]).toMatchObject({
        usage: null,
        settlement: 'estimate',
        priceSource: 'estimate',
        attempts: 1,
        error: null,
      });
      expect(response.calls[0]?.costUsd).toBeGreaterThan(0);
    }
  });

  it('keeps both records of a JSON-mode retry and sums their costs', async () => {
    const adapter = new ChatAdapter(
      new RawTransport([answer('', { completion_tokens: 1 }), answer('{}', { completion_tokens: 2 })]),
      { endpoint: perToken },
    );
    const response = await adapter.complete({ ...request, jsonObject: true });
    expect(response.calls.map((call) => call.costUsd)).toEqual([1, 2]);
    expect(response.costUsd).toBe(3);
    expect(adapter.costUsd()).toBe(3);
  });

  it('sums only the priced calls of a retry', async () => {
    const adapter = new ChatAdapter(
      new RawTransport([answer('', { prompt_tokens: 1 }), answer('{}', { completion_tokens: 2 })]),
      { endpoint: perToken },
    );
    const response = await adapter.complete({ ...request, jsonObject: true });
    expect(response.costUsd).toBe(2);
  });

  it('records a failed raw call with its error kind, status and degradation, then rejects with the error', async () => {
    const failure = new ChatError({ kind: 'model_rejected', status: 400, message: 'no such model' });
    const records: unknown[] = [];
    const adapter = new ChatAdapter(new RawTransport([failure]), {
      endpoint: perToken,
      observers: [{ afterCall: (record) => records.push(record) }],
    });
    await expect(adapter.complete(request)).rejects.toBe(failure);
    expect(records).toEqual([
      expect.objectContaining({
        model: 'primary-v4-pro',
        usage: null,
        costUsd: null,
        attempts: 1,
        error: { kind: 'model_rejected', status: 400, degradation: true },
      }),
    ]);
    expect(adapter.usage).toHaveLength(0);
  });

  it('records a failure that is not a ChatError as a connection failure', async () => {
    const records: { error?: unknown }[] = [];
    const adapter = new ChatAdapter(new RawTransport([new Error('socket hang up')]), {
      observers: [{ afterCall: (record) => records.push(record) }],
    });
    await expect(adapter.complete(request)).rejects.toThrow('socket hang up');
    expect(records[0]?.error).toEqual({ kind: 'connection', status: null, degradation: false });
  });
});

describe('ChatAdapter totals', () => {
  it('adds a bounded copy’s calls to the parent total, keeping each costUsd() its own', async () => {
    const transport = new RawTransport([
      answer('a', { completion_tokens: 1 }),
      answer('b', { completion_tokens: 10 }),
      answer('c', { completion_tokens: 100 }),
    ]);
    const adapter = new ChatAdapter(transport, { endpoint: perToken });
    const bounded = adapter.bounded(50);
    const inner = bounded.bounded(20);
    await adapter.complete(request);
    await bounded.complete(request);
    await inner.complete(request);
    expect([adapter.costUsd(), bounded.costUsd(), inner.costUsd()]).toEqual([1, 10, 100]);
    expect([adapter.totalCostUsd(), bounded.totalCostUsd(), inner.totalCostUsd()]).toEqual([111, 110, 100]);
    expect(adapter.usage).toEqual([{ completion_tokens: 1 }]);
  });

  it('is 0 before any call and without an endpoint', async () => {
    const adapter = new ChatAdapter(new RawTransport([answer('a', { completion_tokens: 1 })]));
    expect(adapter.totalCostUsd()).toBe(0);
    await adapter.complete(request);
    expect(adapter.totalCostUsd()).toBe(0);
  });
});
