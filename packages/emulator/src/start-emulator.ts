import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EmptyJsonSelector } from './empty-json.js';
import { EmulatorState } from './emulator-state.js';
import type { FaultPlan, ModelRejectionWording } from './fault-rule.js';
import { FaultSchedule } from './fault-schedule.js';
import { createRequestHandler } from './handle-request.js';
import type { RecordedRequest } from './recorded-request.js';

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
   * The wording of the 400 for a model id the emulator does not accept:
   * `listing` (default), `but-you-passed` or `not-exist` (see `FaultRule.modelRejected`).
   */
  modelRejection?: ModelRejectionWording;
}

/** A running emulator. */
export interface Emulator {
  /** The base address, e.g. `http://127.0.0.1:40123` (no trailing slash, no version path). */
  readonly url: string;
  /** The port it listens on. */
  readonly port: number;
  /** Every request received since start (or the last `reset()`), in order. */
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
 * Starts a loopback HTTP server that behaves like the primary chat platform:
 * `POST /chat/completions` and `GET /models` at the unversioned root.
 */
export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new RangeError(`options.port must be an integer from 0 to 65535, got ${String(port)}`);
  }
  const host = options.host ?? '127.0.0.1';
  if (typeof host !== 'string' || host === '') throw new TypeError('options.host must be a non-empty string');
  if (options.key !== undefined && (typeof options.key !== 'string' || options.key === '')) {
    throw new TypeError('options.key must be a non-empty string when given');
  }
  const answerTokens = options.answerTokens ?? null;
  if (answerTokens !== null && (!Number.isInteger(answerTokens) || answerTokens < 1)) {
    throw new RangeError(`options.answerTokens must be a positive integer, got ${String(answerTokens)}`);
  }
  const emptyJson = options.emptyJson;
  if (
    emptyJson !== undefined &&
    typeof emptyJson !== 'boolean' &&
    typeof emptyJson !== 'function' &&
    !Array.isArray(emptyJson) &&
    !(emptyJson instanceof Set)
  ) {
    throw new TypeError('options.emptyJson must be a boolean, an array or set of numbers, or a function');
  }

  const modelRejection = options.modelRejection ?? 'listing';
  if (!['listing', 'but-you-passed', 'not-exist'].includes(modelRejection)) {
    throw new TypeError("options.modelRejection must be 'listing', 'but-you-passed' or 'not-exist'");
  }

  const state = new EmulatorState(options.cacheBlockTokens, options.faults);
  const lifetime = new AbortController();
  const server = createServer(
    createRequestHandler(state, {
      key: options.key ?? null,
      emptyJson,
      answerTokens,
      modelRejection,
      signal: lifetime.signal,
    }),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
  let closing: Promise<void> | null = null;

  return {
    url,
    port: bound,
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
