import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EmulatorBill } from '../billing/bill-types.js';
import type { FaultPlan } from '../faults/fault-rule.js';
import { FaultSchedule } from '../faults/fault-schedule.js';
import { basePathOf, type EmulatorFlavor } from '../gateway/emulator-flavor.js';
import type { RecordedRequest } from '../http/recorded-request.js';
import type { EmulatorOptions } from './emulator-options.js';
import { EmulatorState } from './emulator-state.js';
import { createRequestHandler } from './handle-request.js';
import { readEmulatorOptions } from './read-emulator-options.js';

/** A running emulator. */
export interface Emulator {
  /**
   * The base address a client is given, no trailing slash: `http://127.0.0.1:40123`
   * for the primary flavour (no version path), `http://127.0.0.1:40123/api/v1`
   * for the gateway (so `new OpenAITransport({ baseUrl: emulator.url })` works).
   */
  readonly url: string;
  /** Which platform it plays. */
  readonly flavor: EmulatorFlavor;
  /** The port it listens on. */
  readonly port: number;
  /**
   * The requests received since start (or the last `reset()`), in order: the
   * latest `maxRecordedRequests` of them; their `number`s keep counting.
   */
  readonly requests: readonly RecordedRequest[];
  /** Requests received whose response has not finished (or whose connection has not closed) yet. */
  readonly inFlight: number;
  /** The most requests in flight at once since start or the last `reset()` (which restarts it from `inFlight`). */
  readonly peakInFlight: number;
  /** The bytes the prompt-prefix cache holds, as it counts them (`PrefixCache.bytes`): at most `maxCacheBytes`. */
  readonly cacheBytes: number;
  /**
   * What the provider would bill for every chat-completion request answered
   * since start or the last `reset()`, in arrival order: the prompt plus the
   * completion tokens generated (a cut stream's up to the cut), priced with the
   * shipped price table; refused requests listed at 0. A request is in it once
   * its outcome is known (at the latest when its response ends or its
   * connection closes). Not capped by `maxRecordedRequests`: every entry is kept.
   */
  bill(): EmulatorBill;
  /** Replaces the fault plan; its rules' use counts start from zero. Throws TypeError on a bad plan. */
  setFaults(plan: FaultPlan): void;
  /** Forgets recorded requests, request numbering, the bill, the peak in flight, the prefix cache and the fault plan. */
  reset(): void;
  /** Stops listening, closes every connection and pending delay; resolves when all is closed. */
  close(): Promise<void>;
}

/**
 * Starts a loopback HTTP server that behaves like the primary chat platform
 * (`POST /chat/completions` and `GET /models` at the unversioned root), or
 * like the gateway with `flavor: 'gateway'` (the same under `/api/v1`).
 *
 * @throws TypeError or RangeError naming a bad option
 */
export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const { port, host, settings } = readEmulatorOptions(options);
  const state = new EmulatorState(
    options.cacheBlockTokens,
    options.faults,
    settings.maxRecordedRequests,
    settings.maxRecordedBytes,
    settings.maxCacheBytes,
  );
  const lifetime = new AbortController();
  const server = createServer(createRequestHandler(state, { ...settings, signal: lifetime.signal }));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${bound}${basePathOf(settings.flavor)}`;
  let closing: Promise<void> | null = null;

  return {
    url,
    port: bound,
    flavor: settings.flavor,
    get requests() {
      return state.requests;
    },
    get inFlight() {
      return state.inFlight;
    },
    get peakInFlight() {
      return state.peakInFlight;
    },
    get cacheBytes() {
      return state.cache.bytes;
    },
    bill() {
      return state.bill.snapshot();
    },
    setFaults(plan) {
      state.faults = new FaultSchedule(plan);
    },
    reset() {
      state.reset();
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        lifetime.abort();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
