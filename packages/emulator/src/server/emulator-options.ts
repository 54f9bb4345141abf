import type { EmptyJsonSelector } from '../chat/empty-json.js';
import type { ModelRejectionWording } from '../chat/model-rejection.js';
import type { FaultPlan } from '../faults/fault-rule.js';
import type { EmulatorFlavor } from '../gateway/emulator-flavor.js';

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
   * The most bytes the prompt-prefix cache holds (as `cacheBytes` counts them). Default 32 MiB:
   * past it the blocks stored longest ago are forgotten first, so a run of large distinct prompts
   * cannot grow the emulator's memory (200 prompts of 512 KiB held about 1 GiB without it).
   */
  maxCacheBytes?: number;
  /**
   * Which platform to play. `primary` (default): routes at the unversioned root,
   * `thinking` switches reasoning, `reasoning_content`, cache hit/miss usage.
   * `gateway`: routes under `/api/v1` (and `url` ends in `/api/v1`), OpenAI-style
   * usage with a `cost` in USD, `reasoning` + `reasoning_details`; `thinking` is ignored.
   */
  flavor?: EmulatorFlavor;
  /** The largest request body in bytes; a longer one gets a 413. Default 8 MiB. */
  maxRequestBytes?: number;
  /**
   * How many of the latest requests `requests` keeps (numbering goes on). Default
   * 10_000. The bill (`bill()`) is not capped: it keeps an entry per chat request.
   */
  maxRecordedRequests?: number;
  /**
   * How many bytes of request bodies `requests` keeps at most: past it the oldest are forgotten
   * (the latest one always stays). Default 64 MiB, so a run of large prompts cannot grow the
   * emulator's memory without bound (65 requests of 4 MiB stay within it, not at 260 MiB of text
   * and several times that parsed).
   */
  maxRecordedBytes?: number;
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
