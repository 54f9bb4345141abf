import type { Redis } from 'ioredis';
import { PAST_WINDOW_KEEP_MS } from '../scope-windows.js';
import { execOf } from './redis-ledgers.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** A window's key, start and end, found on Redis. */
export interface FoundWindow {
  readonly stateKey: string;
  readonly startMs: number;
  readonly endMs: number;
}

/**
 * The ends of windows (state keys), from their expiry: the budget's scripts keep a window's keys
 * until `end + PAST_WINDOW_KEEP_MS` (PEXPIRE), so `end = now + PTTL − keep`, to the minute (every
 * window starts and ends on a whole minute). A key without an expiry (or gone) gives null: a window
 * whose every acquisition was refused holds no grant, and is not listed.
 */
export async function windowEnds(
  node: Redis,
  stateKeys: readonly string[],
  nowMs: number,
): Promise<(number | null)[]> {
  if (stateKeys.length === 0) return [];
  const batch = node.pipeline();
  for (const key of stateKeys) batch.pttl(key);
  return (await execOf(batch)).map((ttl) => {
    const left = Number(ttl);
    if (!(left >= 0)) return null;
    return Math.round((nowMs + left - PAST_WINDOW_KEEP_MS) / MINUTE_MS) * MINUTE_MS;
  });
}

/**
 * The starts a scope's windows may have `steps` windows before (steps > 0) or after (steps < 0) the
 * window `[startMs, endMs)`, in its unknown zone: its period is read from its length; a day, week or
 * month starts at the same local midnight give or take an hour (a daylight-saving change), a month on
 * the 1st (the zone's offset is the one that puts `startMs` at a local midnight of a 1st).
 */
function startsAround(startMs: number, endMs: number, steps: number): number[] {
  const length = endMs - startMs;
  if (length <= HOUR_MS) return [startMs - steps * HOUR_MS];
  const shifts = (at: number) => [at - HOUR_MS, at, at + HOUR_MS];
  if (length < 2 * DAY_MS) return shifts(startMs - steps * DAY_MS);
  if (length < 8 * DAY_MS) return shifts(startMs - steps * 7 * DAY_MS);
  const found: number[] = [];
  const offset = (((-startMs % DAY_MS) + DAY_MS) % DAY_MS) as number;
  for (const zoneOffset of [offset, offset - DAY_MS]) {
    const local = new Date(startMs + zoneOffset);
    if (local.getUTCDate() !== 1 || local.getUTCHours() !== 0) continue;
    found.push(...shifts(Date.UTC(local.getUTCFullYear(), local.getUTCMonth() - steps, 1) - zoneOffset));
  }
  return found;
}

/**
 * Every window of the scope `base` (key prefix included) the store still keeps, found from one of
 * them (`known`) by asking for the keys of the windows before it back to the keep, and after it up to
 * `nowMs`; or null when a window after `known` exists (that one lists the scope: each scope once).
 */
export async function windowsOf(
  node: Redis,
  base: string,
  known: FoundWindow,
  nowMs: number,
): Promise<FoundWindow[] | null> {
  const keyAt = (startMs: number) => `${base}{${new Date(startMs).toISOString()}}:state`;
  if (known.endMs <= nowMs) {
    // Windows tile the time line: the next one, when it was used, starts at this one's end (one
    // question answers it for a scope called in every window); after a window without calls, its starts
    // are probed as the earlier ones are.
    if ((await node.exists(keyAt(known.endMs))) > 0) return null;
    const later: number[] = [];
    for (let steps = -1; ; steps--) {
      const starts = startsAround(known.startMs, known.endMs, steps).filter((start) => start > known.startMs);
      if (starts.length === 0 || Math.min(...starts) > nowMs) break;
      later.push(...starts);
    }
    if (later.length > 0) {
      const batch = node.pipeline();
      for (const start of later) batch.exists(keyAt(start));
      if ((await execOf(batch)).some((count) => Number(count) > 0)) return null;
    }
  }
  const earlier = new Set<number>();
  const oldest = nowMs - PAST_WINDOW_KEEP_MS - 32 * DAY_MS;
  for (let steps = 1; ; steps++) {
    const starts = startsAround(known.startMs, known.endMs, steps).filter((start) => start < known.startMs);
    if (starts.length === 0 || Math.max(...starts) < oldest) break;
    for (const start of starts) earlier.add(start);
  }
  const starts = [...earlier];
  const ends = await windowEnds(node, starts.map(keyAt), nowMs);
  const windows: FoundWindow[] = [known];
  for (const [index, startMs] of starts.entries()) {
    const endMs = ends[index];
    if (endMs !== null && endMs !== undefined && endMs > startMs)
      windows.push({ stateKey: keyAt(startMs), startMs, endMs });
  }
  return windows.sort((a, b) => a.startMs - b.startMs);
}
