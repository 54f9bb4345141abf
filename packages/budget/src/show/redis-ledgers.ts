import type { Redis } from 'ioredis';
import type { LedgerFigures } from './listing-of.js';

/** Expired leases folded per round trip (a scope may hold many that no script has swept yet). */
const EXPIRED_PAGE = 1000;

/**
 * The figures of ledgers (state hash keys, each with its `:leases` set beside it) as the budget's
 * scripts would count them at Redis's time `nowMs`, read without writing: a lease past its expiry
 * counts as the scripts' next sweep will count it, its amount moved from reserved to spent as an
 * unsettled worst case, and no longer in flight.
 */
export async function readLedgers(
  node: Redis,
  stateKeys: readonly string[],
  nowMs: number,
): Promise<LedgerFigures[]> {
  if (stateKeys.length === 0) return [];
  const batch = node.pipeline();
  for (const state of stateKeys) {
    const leases = `${state.slice(0, -':state'.length)}:leases`;
    batch.hmget(state, 'spent', 'reserved', 'unsettled');
    batch.zcount(leases, `(${nowMs}`, '+inf');
    batch.zrangebyscore(leases, '-inf', nowMs, 'LIMIT', 0, EXPIRED_PAGE);
  }
  const replies = await execOf(batch);
  const figures: LedgerFigures[] = [];
  for (const [index, state] of stateKeys.entries()) {
    const [spent, reserved, unsettled] = (replies[index * 3] as (string | null)[]).map(nanoOf);
    const inFlight = Number(replies[index * 3 + 1]);
    let expired = replies[index * 3 + 2] as string[];
    let moved = 0;
    for (let offset = 0; expired.length > 0; offset += EXPIRED_PAGE) {
      const held = (await node.hmget(state, ...expired.map((lease) => `r:${lease}`))).map(nanoOf);
      moved += held.reduce((sum, amount) => sum + amount, 0);
      if (expired.length < EXPIRED_PAGE) break;
      const leases = `${state.slice(0, -':state'.length)}:leases`;
      expired = await node.zrangebyscore(leases, '-inf', nowMs, 'LIMIT', offset + EXPIRED_PAGE, EXPIRED_PAGE);
    }
    figures.push({
      spent: (spent ?? 0) + moved,
      reserved: Math.max(0, (reserved ?? 0) - moved),
      inFlight,
      unsettled: (unsettled ?? 0) + moved,
    });
  }
  return figures;
}

/** A pipeline's replies; the first command's error, thrown. */
export async function execOf(batch: ReturnType<Redis['pipeline']>): Promise<unknown[]> {
  const results = (await batch.exec()) ?? [];
  return results.map(([error, reply]) => {
    if (error) throw error;
    return reply;
  });
}

function nanoOf(value: string | null | undefined): number {
  const amount = Number(value ?? 0);
  return Number.isFinite(amount) ? amount : 0;
}
