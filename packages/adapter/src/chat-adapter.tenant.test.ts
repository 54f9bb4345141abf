import { closeTestEmulators, startTestEmulator } from '@switchboard/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { watcher } from '../test/support/call-watcher.js';
import type { CallObserver } from './call-observer.js';
import { ChatAdapter } from './chat-adapter.js';
import type { CompleteRequest } from './chat-client.js';
import { OpenAITransport } from './openai-transport.js';

const request: CompleteRequest = { model: 'primary-flash', messages: [{ role: 'user', content: 'hi' }] };

/** An adapter on the real `openai` SDK against an emulator, with `watch` observing it. */
async function emulated(watch: CallObserver, faults: { status: number; times: number }[] = []) {
  const emulator = await startTestEmulator({ faults });
  const transport = new OpenAITransport({ apiKey: 'test-key', baseUrl: emulator.url });
  return new ChatAdapter(transport, { observers: [watch], endpoint: { cost: () => 0.25 } });
}

/** What each attempt and each record said of the role and the tenant. */
function tags(watch: ReturnType<typeof watcher>) {
  return {
    attempts: watch.attempts.map((info) => [info.role, info.tenant]),
    records: watch.records.map((record) => [record.role, record.tenant]),
  };
}

afterEach(closeTestEmulators);

describe('ChatAdapter.forTenant', () => {
  it('tags the tenant on every attempt and record, sharing usage, costs and observers', async () => {
    const watch = watcher();
    const adapter = await emulated(watch, [{ status: 503, times: 1 }]);
    const acme = adapter.forTenant('acme');
    expect(acme.tenant).toBe('acme');
    expect(adapter.tenant).toBeNull();
    const response = await acme.complete(request);
    expect(response.calls[0]).toMatchObject({ tenant: 'acme', role: null, attempts: 2 });
    await adapter.complete(request);
    expect(tags(watch)).toEqual({
      attempts: [
        [null, 'acme'],
        [null, 'acme'],
        [null, null],
      ],
      records: [
        [null, 'acme'],
        [null, null],
      ],
    });
    expect(adapter.usage).toHaveLength(2);
    expect(acme.usage).toBe(adapter.usage);
    expect(acme.costUsd()).toBe(0.5);
    expect(adapter.totalCostUsd()).toBe(0.5);
  });

  it('composes with forRole in both orders, and a bounded copy keeps both', async () => {
    const watch = watcher();
    const adapter = await emulated(watch);
    const tenantThenRole = adapter.forTenant('acme').forRole('judge');
    const roleThenTenant = adapter.forRole('judge').forTenant('globex');
    expect([tenantThenRole.role, tenantThenRole.tenant]).toEqual(['judge', 'acme']);
    expect([roleThenTenant.role, roleThenTenant.tenant]).toEqual(['judge', 'globex']);
    await tenantThenRole.complete(request);
    await roleThenTenant.complete(request);
    await roleThenTenant.bounded(16).complete(request);
    // A later view replaces only what it sets.
    await tenantThenRole.forTenant('initech').complete(request);
    expect(tags(watch).records).toEqual([
      ['judge', 'acme'],
      ['judge', 'globex'],
      ['judge', 'globex'],
      ['judge', 'initech'],
    ]);
    expect(tags(watch).attempts).toEqual(tags(watch).records);
  });

  it('lets a request’s own tenant win over a view’s, for that call only', async () => {
    const watch = watcher();
    const adapter = await emulated(watch);
    const view = adapter.forRole('judge').forTenant('acme');
    const own = await view.complete({ ...request, tenant: 'globex' });
    const again = await view.complete(request);
    const plain = await adapter.complete({ ...request, tenant: 'initech' });
    expect([own, again, plain].map((response) => response.calls[0]?.tenant)).toEqual([
      'globex',
      'acme',
      'initech',
    ]);
    expect(tags(watch).attempts).toEqual([
      ['judge', 'globex'],
      ['judge', 'acme'],
      [null, 'initech'],
    ]);
  });

  it('carries the tenant through a stream, its retries and its record', async () => {
    const watch = watcher();
    const adapter = await emulated(watch, [{ status: 503, times: 1 }]);
    const stream = adapter.forTenant('acme').stream({ ...request, role: 'detector' });
    for await (const _delta of stream) {
      // read to the end
    }
    const record = (await stream.response).calls[0];
    expect(record).toMatchObject({ streamed: true, attempts: 2, tenant: 'acme', role: 'detector' });
    expect(tags(watch)).toEqual({
      attempts: [
        ['detector', 'acme'],
        ['detector', 'acme'],
      ],
      records: [['detector', 'acme']],
    });
  });

  it('records a call without a tenant as null', async () => {
    const watch = watcher();
    const adapter = await emulated(watch);
    const response = await adapter.complete({ ...request, tenant: undefined });
    expect(response.calls[0]?.tenant).toBeNull();
    expect(watch.attempts[0]?.tenant).toBeNull();
  });

  describe('refuses a malformed tenant with a TypeError naming the field', () => {
    const cases: [string, unknown, RegExp][] = [
      ['empty', '', /must be a non-empty string/],
      ['white space only', ' \t', /must be a non-empty string/],
      ['not a string', 42, /must be a string, got number/],
      ['too long', 'a'.repeat(257), /must be at most 256 characters \(UTF-16 code units\), got 257/],
      ['a slash (it would nest a budget scope)', 'acme/eu', /must not contain '\{', '\}', '\/' or control/],
      ['a brace (a Redis Cluster hash tag)', '{acme}', /must not contain/],
      ['a control character', 'acme\n', /must not contain/],
      ['a lone surrogate', 'acme\uD800', /must be well-formed Unicode/],
    ];

    it.each(cases)('forTenant: %s', (_name, tenant, message) => {
      const adapter = new ChatAdapter({ completeChat: async () => ({ content: 'never' }) });
      expect(() => adapter.forTenant(tenant as string)).toThrow(TypeError);
      expect(() => adapter.forTenant(tenant as string)).toThrow(new RegExp(`^tenant ${message.source}`));
    });

    it.each(cases)('request.tenant: %s, before anything is sent', async (_name, tenant, message) => {
      const watch = watcher();
      const adapter = await emulated(watch);
      const call = adapter.forTenant('acme').complete({ ...request, tenant: tenant as string });
      await expect(call).rejects.toThrow(TypeError);
      await expect(adapter.complete({ ...request, tenant: tenant as string })).rejects.toThrow(
        new RegExp(`^request\\.tenant ${message.source}`),
      );
      expect(watch.attempts).toEqual([]);
    });

    it('accepts a tenant of exactly 256 characters, with a surrogate pair', () => {
      const adapter = new ChatAdapter({ completeChat: async () => ({ content: 'never' }) });
      const tenant = `${'a'.repeat(254)}😀`;
      expect(adapter.forTenant(tenant).tenant).toBe(tenant);
    });
  });
});
