import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EmptyJsonSelector } from '../chat/empty-json.js';
import type { ModelRejectionWording } from '../chat/model-rejection.js';
import type { FaultPlan } from '../faults/fault-rule.js';
import { FaultSchedule } from '../faults/fault-schedule.js';
import { basePathOf, type EmulatorFlavor } from '../gateway/emulator-flavor.js';
import type { RecordedRequest } from '../http/recorded-request.js';
import { EmulatorState } from './emulator-state.js';
import { createRequestHandler } from './handle-request.js';
import { readEmulatorOptions } from './read-emulator-options.js';

/** Options of {@link startEmulator}. */
export interface EmulatorOptions {
  /** The port to listen on. Default 0: a free port chosen by the system. */
  port?: number;
  /** The address to listen on. Default `127.0.0.1`. */
  host?: string;
  /** When set, every request must carry `Authorization: Bearer <key>`, else it gets a 401. */
  key?: string;
  /** Which JSON-mode requests come back with empty content. Default: none. */
  emptyJson?: EmptyJsonSelector;
  /** The fault plan to start with (see `setFaults`). Default: none. */
  faults?: FaultPlan;
  /**
   * Every answer's length in tokens (before JSON wrapping), e.g. 12_000 for a
   * reply of about 50 KB. Default: about half the question's length. The
   * `x-emulator-answer-tokens` request header sets it for one request.
   */
  answerTokens?: number;
  /** Tokens per prefix-cache block; cache hits are multiples of it. Default 4 (1 = exact tokens). */
  cacheBlockTokens?: number;
  /**
   * Which platform to play. `primary` (default): routes at the unversioned root,
   * `thinking` switches reasoning, `reasoning_content`, cache hit/miss usage.
   * `gateway`: routes under `/api/v1` (and `url` ends in `/api/v1`), OpenAI-style
   * usage with a `cost` in USD, `reasoning` + `reasoning_details`; `thinking` is ignored.
   */
  flavor?: EmulatorFlavor;
  /** The largest request body in bytes; a longer one gets a 413. Default 8 MiB. */
  maxRequestBytes?: number;
  /** How many of the latest requests `requests` keeps (numbering goes on). Default 10_000. */
  maxRecordedRequests?: number;
  /**
   * The wording of the 400 for a model id the emulator does not accept:
   * `listing` (default), `but-you-passed` or `not-exist` (see `FaultRule.modelRejected`).
   */
  modelRejection?: ModelRejectionWording;
  /**
   * Play a strict OpenAI-compatible server: a chat body field OpenAI's API does
   * not have (the primary's `thinking`, say) gets a 400 `Unrecognized request
   * argument supplied: thinking` (`param` the field). Default false.
   */
  strictFields?: boolean;
}

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
  /** Replaces the fault plan; its rules' use counts start from zero. Throws TypeError on a bad plan. */
  setFaults(plan: FaultPlan): void;
  /** Forgets recorded requests, request numbering, the peak in flight, the prefix cache and the fault plan. */
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
  const state = new EmulatorState(options.cacheBlockTokens, options.faults, settings.maxRecordedRequests);
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
