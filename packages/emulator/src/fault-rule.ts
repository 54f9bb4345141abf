/**
 * One rule of a fault plan: which requests it applies to (every given selector
 * must match), how many times, and what it does to them.
 *
 * Effects, in order of precedence: `delayMs` waits first and combines with any
 * other effect; then the first of `reset`, `body`, `emptyBody`, `status` that
 * is set answers instead of the emulator; otherwise the request is answered
 * normally, changed by `emptyContent`, `noChoices` and `truncate`.
 *
 * @example `{ status: 429, retryAfter: 1, times: 1 }` — the next request gets a 429 with `retry-after: 1`.
 * @example `{ requests: [2, 3], model: 'primary-v4-pro', status: 503 }`
 */
export interface FaultRule {
  /**
   * The request numbers the rule applies to: the 1-based `number` of
   * `Emulator.requests`, counting every request (any path or method) since
   * start or the last `reset()`. Default: any request.
   */
  readonly requests?: number | readonly number[];
  /** Only requests whose body's `model` is this id, as sent or as the id an alias maps to. */
  readonly model?: string;
  /** Only requests to this path (query string ignored), e.g. `/chat/completions`. */
  readonly path?: string;
  /** How many matching requests the rule applies to before it is used up. Default: no limit. */
  readonly times?: number;

  /** Waits this many milliseconds before answering (normally, unless another effect is set). */
  readonly delayMs?: number;
  /** Destroys the connection without any response (a connection reset). */
  readonly reset?: boolean;
  /** Answers with this raw, usually non-JSON, text instead (status `status` or 200). */
  readonly body?: string;
  /** The content type of `body`. Default: `text/html`. */
  readonly contentType?: string;
  /** Answers 200 with a JSON content type and an empty body. */
  readonly emptyBody?: boolean;
  /** Answers with this HTTP status and a JSON error body (429, 500, 503, ...). */
  readonly status?: number;
  /** The error message of a `status` answer. Default: a message fitting the status. */
  readonly message?: string;
  /** Sets the `retry-after` header to this many seconds. */
  readonly retryAfter?: number;
  /** Sets the `retry-after-ms` header to this many milliseconds. */
  readonly retryAfterMs?: number;
  /** Answers normally, but with the reply message's content empty (`''`). */
  readonly emptyContent?: boolean;
  /** Answers normally, but with `choices: []` (usage kept). */
  readonly noChoices?: boolean;
  /** Answers 200 with a JSON content type and only the first half of the JSON body. */
  readonly truncate?: boolean;
}

/** A fault plan: rules tried in order; the first matching rule with uses left applies. */
export type FaultPlan = readonly FaultRule[];
