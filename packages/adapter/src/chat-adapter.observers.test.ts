import { closeTestEmulators, startTestEmulator } from '@switchboard/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { AttemptingTransport, answer, RawTransport } from '../test/support/raw-transport.js';
import type { AttemptInfo, AttemptOutcome, CallObserver } from './call-observer.js';
import type { CallRecord } from './call-record.js';
import { ChatAdapter } from './chat-adapter.js';
import type { CompleteRequest } from './chat-client.js';
import { ChatError } from './chat-error.js';
import { OpenAITransport } from './openai-transport.js';

const request: CompleteRequest = { model: 'primary-flash', messages: [{ role: 'user', content: 'hi' }] };
const serverDown = () => new ChatError({ kind: 'server', status: 503, message: 'down' });

/** An observer that writes down, with its name, every hook call it gets. */
function journal(name: string, events: string[], records: CallRecord[] = []): CallObserver {
  return {
    beforeAttempt: (info: AttemptInfo) => {
      events.push(`${name} before ${info.attempt}`);
      return {
        end: (outcome: AttemptOutcome) => {
          events.push(
            `${name} end ${info.attempt} ${outcome.record ? 'record' : `error ${(outcome.error as Error).message}`}`,
          );
        },
      };
    },
    afterCall: (record) => {
      events.push(`${name} after`);
      records.push(record);
    },
  };
}

afterEach(closeTestEmulators);

describe('ChatAdapter observers', () => {
  it('calls beforeAttempt in order, ends each attempt once with the record, then afterCall', async () => {
    const events: string[] = [];
    const records: CallRecord[] = [];
    const adapter = new ChatAdapter(new RawTransport([answer('ok', { completion_tokens: 1 })]), {
      observers: [journal('a', events, records), journal('b', events)],
    });
    const response = await adapter.complete(request);
    expect(events).toEqual([
      'a before 1',
      'b before 1',
      'a end 1 record',
      'b end 1 record',
      'a after',
      'b after',
    ]);
    expect(records).toEqual([response.calls[0]]);
  });

  it('tells beforeAttempt the model, attempt, role, tenant, messages, tools, cap, signal and whether the cap can be lowered', async () => {
    const infos: AttemptInfo[] = [];
    const controller = new AbortController();
    const adapter = new ChatAdapter(new RawTransport([answer('ok')]), {
      observers: [{ beforeAttempt: (info) => void infos.push(info) }],
    });
    await adapter.complete({ ...request, role: 'judge', maxTokens: 30, signal: controller.signal });
    expect(infos).toEqual([
      {
        callId: expect.any(String),
        model: 'primary-flash',
        attempt: 1,
        role: 'judge',
        tenant: null,
        messages: request.messages,
        tools: undefined,
        maxTokens: 30,
        signal: controller.signal,
        // A transport the adapter calls once per attempt: it sends a lowered cap itself.
        canLowerMaxTokens: true,
      },
    ]);
  });

  describe('with a transport that reports its attempts', () => {
    it('runs the hooks around every attempt and ends failed ones with their error', async () => {
      const events: string[] = [];
      const records: CallRecord[] = [];
      const transport = new AttemptingTransport([serverDown(), serverDown(), answer('ok')]);
      const adapter = new ChatAdapter(transport, { observers: [journal('a', events, records)] });
      const response = await adapter.complete(request);
      expect(events).toEqual([
        'a before 1',
        'a end 1 error down',
        'a before 2',
        'a end 2 error down',
        'a before 3',
        'a end 3 record',
        'a after',
      ]);
      expect(response.calls[0]?.attempts).toBe(3);
      expect(records[0]?.attempts).toBe(3);
    });

    it('counts attempts without observers too', async () => {
      const transport = new AttemptingTransport([serverDown(), answer('ok')]);
      const response = await new ChatAdapter(transport).complete(request);
      expect(response.calls[0]?.attempts).toBe(2);
    });

    it('records the last failure with every attempt counted', async () => {
      const records: CallRecord[] = [];
      const transport = new AttemptingTransport([serverDown(), serverDown()], 2);
      const adapter = new ChatAdapter(transport, {
        observers: [{ afterCall: (record) => records.push(record) }],
      });
      await expect(adapter.complete(request)).rejects.toThrow('down');
      expect(records[0]).toMatchObject({ attempts: 2, error: { kind: 'server', status: 503 } });
    });
  });

  describe('a refusal before an attempt', () => {
    it('ends the call with the observer’s error before anything is sent, releasing earlier handles', async () => {
      const events: string[] = [];
      const refusal = new ChatError({ kind: 'budget', message: 'budget of $1 spent' });
      const transport = new RawTransport([answer('never')]);
      const records: CallRecord[] = [];
      const adapter = new ChatAdapter(transport, {
        observers: [
          journal('gate', events, records),
          {
            beforeAttempt: () => {
              throw refusal;
            },
          },
        ],
      });
      await expect(adapter.complete(request)).rejects.toBe(refusal);
      expect(transport.requests).toHaveLength(0);
      expect(events).toEqual(['gate before 1', 'gate end 1 error budget of $1 spent', 'gate after']);
      expect(records[0]).toMatchObject({ usage: null, attempts: 0, error: { kind: 'budget' } });
    });

    it('waits for an observer that waits (a concurrency slot)', async () => {
      let release: () => void = () => {};
      const slot = new Promise<void>((resolve) => {
        release = resolve;
      });
      const transport = new RawTransport([answer('ok')]);
      const adapter = new ChatAdapter(transport, { observers: [{ beforeAttempt: () => slot }] });
      const pending = adapter.complete(request);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(transport.requests).toHaveLength(0);
      release();
      await expect(pending).resolves.toMatchObject({ content: 'ok' });
    });
  });

  it('gives a handle an Error when a stub transport fails with something else, the value as cause', async () => {
    const outcomes: AttemptOutcome[] = [];
    const stub = new ChatAdapter(
      {
        completeChat: () => Promise.reject('the stub gave up'),
      },
      { observers: [{ beforeAttempt: () => ({ end: (outcome) => void outcomes.push(outcome) }) }] },
    );
    await expect(stub.complete(request)).rejects.toBe('the stub gave up');
    expect(outcomes).toHaveLength(1);
    const error = outcomes[0]?.error;
    expect(error).toBeInstanceOf(Error);
    expect(error?.message).toBe('the attempt failed with a non-Error value (string)');
    expect(error?.cause).toBe('the stub gave up');
  });

  it('swallows errors thrown or rejected by end and afterCall', async () => {
    const adapter = new ChatAdapter(new RawTransport([answer('ok')]), {
      observers: [
        {
          beforeAttempt: () => ({
            end: () => {
              throw new Error('end broke');
            },
          }),
          afterCall: () => {
            throw new Error('afterCall broke');
          },
        },
        {
          beforeAttempt: () => ({ end: () => Promise.reject(new Error('async end broke')) }),
          afterCall: (() => Promise.reject(new Error('async afterCall broke'))) as unknown as () => void,
        },
      ],
    });
    await expect(adapter.complete(request)).resolves.toMatchObject({ content: 'ok' });
  });

  it('rejects an observer that is not an object of hooks, naming what is expected', () => {
    const transport = new RawTransport([]);
    expect(
      () => new ChatAdapter(transport, { observers: [{ afterCall: 1 } as unknown as CallObserver] }),
    ).toThrow(/observer must be an object/);
    expect(() => new ChatAdapter(transport).observe(null as unknown as CallObserver)).toThrow(TypeError);
  });

  describe('observe', () => {
    it('adds an observer shared with bounded copies made before and after, until unsubscribed', async () => {
      const transport = new RawTransport([answer('1'), answer('2'), answer('3'), answer('4')]);
      const adapter = new ChatAdapter(transport);
      const earlyCopy = adapter.bounded(10);
      const seen: string[] = [];
      const stop = adapter.observe({ afterCall: (record) => seen.push(`${record.role ?? 'none'}`) });
      await adapter.complete(request);
      await earlyCopy.complete({ ...request, role: 'early' });
      await adapter.bounded(5).forRole('late').complete(request);
      stop();
      stop();
      await adapter.complete(request);
      expect(seen).toEqual(['none', 'early', 'late']);
    });

    it('keeps a bounded copy’s own observer to itself', async () => {
      const transport = new RawTransport([answer('1'), answer('2')]);
      const adapter = new ChatAdapter(transport);
      const copy = adapter.bounded(10);
      const seen: string[] = [];
      copy.observe({ afterCall: (record) => seen.push(record.model) });
      await adapter.complete(request);
      await copy.complete({ ...request, model: 'primary-v4-pro' });
      expect(seen).toEqual(['primary-v4-pro']);
    });
  });

  describe('forRole', () => {
    it('tags the role on records and attempts, sharing usage, costs and observers', async () => {
      const transport = new RawTransport([
        answer('1', { completion_tokens: 2 }),
        answer('2', { completion_tokens: 3 }),
      ]);
      const records: CallRecord[] = [];
      const roles: (string | null)[] = [];
      const adapter = new ChatAdapter(transport, {
        endpoint: { cost: (usage) => (usage as { completion_tokens: number }).completion_tokens },
        observers: [
          {
            beforeAttempt: (info) => void roles.push(info.role),
            afterCall: (record) => records.push(record),
          },
        ],
      });
      const judge = adapter.forRole('judge');
      expect(judge.role).toBe('judge');
      expect(adapter.role).toBeNull();
      await judge.complete(request);
      await judge.complete({ ...request, role: 'detector' });
      expect(roles).toEqual(['judge', 'detector']);
      expect(records.map((record) => record.role)).toEqual(['judge', 'detector']);
      expect(judge.usage).toBe(adapter.usage);
      expect(adapter.usage).toHaveLength(2);
      expect([adapter.costUsd(), judge.costUsd(), adapter.totalCostUsd(), judge.totalCostUsd()]).toEqual([
        5, 5, 5, 5,
      ]);
      expect(judge.disableThinking).toBe(adapter.disableThinking);
      expect(judge.endpoint).toBe(adapter.endpoint);
    });

    it('keeps its role in a bounded copy', async () => {
      const transport = new RawTransport([answer('1')]);
      const response = await new ChatAdapter(transport).forRole('classifier').bounded(8).complete(request);
      expect(response.calls[0]?.role).toBe('classifier');
    });

    it.each([[''], ['  '], [undefined], [3]])('refuses the role %j', (role) => {
      expect(() => new ChatAdapter(new RawTransport([])).forRole(role as string)).toThrow(
        new TypeError('role must be a non-empty string'),
      );
    });
  });

  it('runs around a real OpenAITransport call against the emulator', async () => {
    const emulator = await startTestEmulator({ faults: [{ status: 503, times: 1 }] });
    const events: string[] = [];
    const records: CallRecord[] = [];
    const adapter = new ChatAdapter(new OpenAITransport({ apiKey: 'test-key', baseUrl: emulator.url }), {
      observers: [journal('meter', events, records)],
    });
    const response = await adapter.complete(request);
    expect(response.content).not.toBeNull();
    expect(records).toEqual([response.calls[0]]);
    expect(records[0]?.usage).toEqual(adapter.usage[0]);
    expect(records[0]?.attempts).toBeGreaterThanOrEqual(1);
    expect(events.at(-1)).toBe('meter after');
    expect(events.filter((event) => event.startsWith('meter before'))).toHaveLength(
      events.filter((event) => event.startsWith('meter end')).length,
    );
  });
});
