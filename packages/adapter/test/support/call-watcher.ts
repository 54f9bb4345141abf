import type { AttemptInfo, CallObserver, CallRecord } from '../../src/index.js';

/** An observer that keeps every attempt's info and every record, in order. */
export function watcher(): CallObserver & { attempts: AttemptInfo[]; records: CallRecord[] } {
  const attempts: AttemptInfo[] = [];
  const records: CallRecord[] = [];
  return {
    attempts,
    records,
    beforeAttempt: (info) => void attempts.push(info),
    afterCall: (record) => void records.push(record),
  };
}
