// The heartbeat reports a lease lost only when no settlement of it was sent: a renewal that runs after a
// settlement committed, before its answer came back, finds the lease gone, and that is no loss. One renewal
// per store at a time: a beat while one is on the server skips that store.
import { describe, expect, it, vi } from 'vitest';
import type { BudgetStore } from '../src/budget-store.js';
import { LeaseHeartbeat } from '../src/lease-heartbeat.js';
import { MemoryBudgetStore } from '../src/memory-store.js';
import type { StoredScope } from '../src/scope-limits.js';
import { until } from './support/until.js';

const SCOPES: StoredScope[] = [{ key: 'root', limitNanoUsd: 1_000, maxInFlight: null }];

describe('LeaseHeartbeat', () => {
  it('a lease whose settlement was sent is not reported lost; one that was not is', async () => {
    const store = new MemoryBudgetStore();
    const warnings: string[] = [];
    const lost: string[] = [];
    const heartbeat = new LeaseHeartbeat(30, (message) => warnings.push(message));
    try {
      for (const leaseId of ['settling', 'gone']) {
        expect(store.acquire({ leaseId, scopes: SCOPES, amountNanoUsd: 10, ttlMs: 60_000 })).toMatchObject({
          granted: true,
        });
        heartbeat.add({ leaseId, scopes: SCOPES, store, onLost: () => lost.push(leaseId) });
      }
      // Both settled in the store; only the first's settlement is known to be under way.
      heartbeat.settling('settling');
      expect(store.settle('settling', SCOPES, { actualNanoUsd: 5, leased: true })).toBe(true);
      expect(store.settle('gone', SCOPES, { actualNanoUsd: 5, leased: true })).toBe(true);
      await until(() => warnings.length > 0, 'a renewal that found a lease gone');
      expect(warnings[0]).toBe('1 budget lease(s) expired while their calls ran');
      expect(lost).toEqual(['gone']);
    } finally {
      heartbeat.stop();
    }
  });

  it('settling() of a lease it does not hold changes nothing', async () => {
    const store = new MemoryBudgetStore();
    const warnings: string[] = [];
    const heartbeat = new LeaseHeartbeat(30, (message) => warnings.push(message));
    try {
      heartbeat.settling('unknown');
      expect(
        store.acquire({ leaseId: 'unknown', scopes: SCOPES, amountNanoUsd: 10, ttlMs: 60_000 }),
      ).toMatchObject({
        granted: true,
      });
      heartbeat.add({ leaseId: 'unknown', scopes: SCOPES, store });
      expect(store.settle('unknown', SCOPES, { actualNanoUsd: 5, leased: true })).toBe(true);
      await until(() => warnings.length > 0, 'a renewal that found the lease gone');
      expect(warnings[0]).toBe('1 budget lease(s) expired while their calls ran');
    } finally {
      heartbeat.stop();
    }
  });

  it('sends no renewal to a store while its last one is unanswered', async () => {
    vi.useFakeTimers();
    const memory = new MemoryBudgetStore();
    const answers: Array<() => void> = [];
    let asked = 0;
    // The memory store's answers, each held until the test lets it through.
    const store = new Proxy(memory, {
      get(target, name, receiver) {
        if (name !== 'renew') return Reflect.get(target, name, receiver);
        return (...args: Parameters<MemoryBudgetStore['renew']>) => {
          asked += 1;
          const answer = target.renew(...args);
          return new Promise((resolve) => answers.push(() => resolve(answer)));
        };
      },
    }) as BudgetStore;
    const warnings: string[] = [];
    const heartbeat = new LeaseHeartbeat(30, (message) => warnings.push(message));
    try {
      expect(
        memory.acquire({ leaseId: 'held', scopes: SCOPES, amountNanoUsd: 10, ttlMs: 60_000 }),
      ).toMatchObject({
        granted: true,
      });
      heartbeat.add({ leaseId: 'held', scopes: SCOPES, store });
      // Ten beats (every 10 ms): the first sends a renewal, the nine after it find it unanswered.
      await vi.advanceTimersByTimeAsync(100);
      expect(asked).toBe(1);
      answers.shift()?.();
      await vi.advanceTimersByTimeAsync(10);
      expect(asked).toBe(2);
      expect(warnings).toEqual([]);
    } finally {
      heartbeat.stop();
      vi.useRealTimers();
    }
  });
});
