import { BillBook } from '../billing/emulator-bill.js';
import type { FaultPlan } from '../faults/fault-rule.js';
import { FaultSchedule } from '../faults/fault-schedule.js';
import { ReasoningLedger } from '../gateway/reasoning-details.js';
import type { RecordedRequest } from '../http/recorded-request.js';
import { PrefixCache } from '../tokens/prefix-cache.js';

/** The mutable state of one running emulator. */
export class EmulatorState {
  /** The most recent requests received, in order: at most `maxRecordedRequests`, and `maxRecordedBytes` of bodies. */
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
  readonly #maxRecordedBytes: number;
  /** The body size of each recorded request, in the order of `requests`, and their sum. */
  #sizes: number[] = [];
  #recordedBytes = 0;

  constructor(
    cacheBlockTokens: number | undefined,
    faults: FaultPlan | undefined,
    maxRecordedRequests: number,
    maxRecordedBytes: number = Number.POSITIVE_INFINITY,
    maxCacheBytes?: number,
  ) {
    this.cache = new PrefixCache(cacheBlockTokens, maxCacheBytes);
    this.faults = new FaultSchedule(faults);
    this.#maxRecordedRequests = maxRecordedRequests;
    this.#maxRecordedBytes = maxRecordedBytes;
  }

  /**
   * Keeps `request` (whose body was `bytes` long) among the recorded ones, forgetting the oldest
   * past the window: more than `maxRecordedRequests` requests, or more than `maxRecordedBytes` of
   * bodies (the latest request always stays, whatever its size).
   */
  record(request: RecordedRequest, bytes = 0): void {
    this.requests.push(request);
    this.#sizes.push(bytes);
    this.#recordedBytes += bytes;
    let drop = Math.max(0, this.requests.length - this.#maxRecordedRequests);
    let kept = this.#recordedBytes;
    for (let index = 0; index < drop; index += 1) kept -= this.#sizes[index] ?? 0;
    while (kept > this.#maxRecordedBytes && drop < this.requests.length - 1) {
      kept -= this.#sizes[drop] ?? 0;
      drop += 1;
    }
    if (drop > 0) {
      this.requests.splice(0, drop);
      this.#sizes.splice(0, drop);
      this.#recordedBytes = kept;
    }
  }

  /** The bytes of request bodies `requests` holds. */
  get recordedBytes(): number {
    return this.#recordedBytes;
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
    this.#sizes = [];
    this.#recordedBytes = 0;
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
