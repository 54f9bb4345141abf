// The heartbeat reports a lease lost only when no settlement of it was sent: a renewal that runs after a
// settlement committed, before its answer came back, finds the lease gone, and that is no loss.
import { describe, expect, it } from 'vitest';
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
});
