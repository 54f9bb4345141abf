import type { TelemetryRecord } from './telemetry-record.js';

/**
 * A streamed call's time to its first chunk, in seconds: the record's
 * `firstDeltaMs` (measured from the raw call's start to the first delta the
 * caller could read) / 1000. Null for a call that was not streamed, or a stream
 * that ended before any delta arrived.
 */
export function firstChunkSeconds(record: TelemetryRecord): number | null {
  if (record.streamed !== true) return null;
  const ms = record.firstDeltaMs;
  return typeof ms === 'number' && Number.isFinite(ms) && ms >= 0 ? ms / 1000 : null;
}
