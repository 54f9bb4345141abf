import type { FaultPlan } from './fault-rule.js';
import { FaultSchedule } from './fault-schedule.js';
import { PrefixCache } from './prefix-cache.js';
import type { RecordedRequest } from './recorded-request.js';

/** The mutable state of one running emulator. */
export class EmulatorState {
  /** Every request received, in order. */
  readonly requests: RecordedRequest[] = [];
  readonly cache: PrefixCache;
  faults: FaultSchedule;
  /** Requests received so far (the last request's number). */
  requestCount = 0;
  /** Valid JSON-mode chat requests so far. */
  jsonCount = 0;
  /** Completions made so far; never reset, so answers that may vary keep varying. */
  sequence = 0;

  constructor(cacheBlockTokens: number | undefined, faults: FaultPlan | undefined) {
    this.cache = new PrefixCache(cacheBlockTokens);
    this.faults = new FaultSchedule(faults);
  }

  /** Forgets the recorded requests, the counters, the prefix cache and the fault plan. */
  reset(): void {
    this.requests.length = 0;
    this.requestCount = 0;
    this.jsonCount = 0;
    this.cache.clear();
    this.faults = new FaultSchedule();
  }
}
