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
  /** Requests received whose response has not finished or closed yet. */
  inFlight = 0;
  /** The most requests in flight at once since start or the last `reset()`. */
  peakInFlight = 0;

  constructor(cacheBlockTokens: number | undefined, faults: FaultPlan | undefined) {
    this.cache = new PrefixCache(cacheBlockTokens);
    this.faults = new FaultSchedule(faults);
  }

  /** Counts a request that has arrived. */
  requestStarted(): void {
    this.inFlight += 1;
    this.peakInFlight = Math.max(this.peakInFlight, this.inFlight);
  }

  /** Counts a request whose response has finished or whose connection closed. */
  requestEnded(): void {
    this.inFlight -= 1;
  }

  /** Forgets the recorded requests, the counters, the peak in flight, the prefix cache and the fault plan. */
  reset(): void {
    this.requests.length = 0;
    this.requestCount = 0;
    this.jsonCount = 0;
    this.cache.clear();
    this.faults = new FaultSchedule();
    // Requests still in flight stay counted; the peak starts again from them.
    this.peakInFlight = this.inFlight;
  }
}
