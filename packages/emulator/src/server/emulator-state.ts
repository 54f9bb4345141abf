import { BillBook } from '../billing/emulator-bill.js';
import type { FaultPlan } from '../faults/fault-rule.js';
import { FaultSchedule } from '../faults/fault-schedule.js';
import { ReasoningLedger } from '../gateway/reasoning-details.js';
import type { RecordedRequest } from '../http/recorded-request.js';
import { PrefixCache } from '../tokens/prefix-cache.js';

/** The mutable state of one running emulator. */
export class EmulatorState {
  /** The most recent requests received, in order: at most `maxRecordedRequests`. */
  readonly requests: RecordedRequest[] = [];
  /** What the provider would bill for each chat-completion request answered (never capped). */
  readonly bill = new BillBook();
  readonly cache: PrefixCache;
  /** The gateway's record of the `reasoning_details` it sent with tool calls. */
  readonly ledger = new ReasoningLedger();
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
  readonly #maxRecordedRequests: number;

  constructor(
    cacheBlockTokens: number | undefined,
    faults: FaultPlan | undefined,
    maxRecordedRequests: number,
  ) {
    this.cache = new PrefixCache(cacheBlockTokens);
    this.faults = new FaultSchedule(faults);
    this.#maxRecordedRequests = maxRecordedRequests;
  }

  /** Keeps `request` among the recorded ones, forgetting the oldest past the window. */
  record(request: RecordedRequest): void {
    this.requests.push(request);
    if (this.requests.length > this.#maxRecordedRequests) {
      this.requests.splice(0, this.requests.length - this.#maxRecordedRequests);
    }
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

  /**
   * Forgets the recorded requests, the bill, the counters, the peak in flight,
   * the prefix cache, the gateway's reasoning record and the fault plan.
   */
  reset(): void {
    this.requests.length = 0;
    this.bill.clear();
    this.requestCount = 0;
    this.jsonCount = 0;
    this.cache.clear();
    this.ledger.clear();
    this.faults = new FaultSchedule();
    // Requests still in flight stay counted; the peak starts again from them.
    this.peakInFlight = this.inFlight;
  }
}
