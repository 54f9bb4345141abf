import type { ModelRejectionWording } from '../chat/model-rejection.js';

export type { ModelRejectionWording };

/** A 200 reply whose JSON body carries an `error` object, as the gateway sends (see {@link FaultRule.errorInBody}). */
export interface ErrorInBody {
  /** The numeric `error.code`, e.g. 429 or 502. */
  readonly code: number;
  /** `error.message`. Default: a message fitting the code. */
  readonly message?: string;
  /** `error.metadata.raw`, the upstream provider's own detail. Default: a fixed provider detail text. */
  readonly raw?: string;
  /**
   * Also carry the reply's `id`, `model`, `usage` and `choices` (one choice with
   * empty content and `finish_reason: 'error'`). Default false: only `error`.
   */
  readonly withChoices?: boolean;
}

/**
 * How the gateway's `GET /models` listing is changed (see {@link FaultRule.listing}): one price
 * changed, a prompt-size tier added, or a hostile listing. Only a models listing is changed.
 */
export interface ListingFault {
  /**
   * Fields set on the `pricing` of listed models, keyed by the listed id
   * (`primary/primary-flash`), values as given: `{ 'primary/primary-flash': { prompt: '0.0000005' } }`
   * changes one price, `{ …: { tiers: [{ above_input_tokens: 128000, prompt, completion,
   * input_cache_read }] } }` adds a long-context tier, `{ …: { prompt: 5 } }` a wrong type. An id
   * the listing does not have is added as a new entry with only this `pricing`.
   */
  readonly pricing?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** This many more entries (`primary/filler-1`, … priced as the first model): a huge listing. */
  readonly padding?: number;
  /** `data` is this JSON value as given (wrong types: `'x'`, `{}`, `[1, null]`). */
  readonly data?: unknown;
  /** The first entry's `pricing.prompt` nested this many arrays deep (`[[[…]]]`): a deeply nested listing. */
  readonly nesting?: number;
}

/** A redirect answer (see {@link FaultRule.redirect}). */
export interface RedirectFault {
  /** The redirect status. Default 307. */
  readonly status?: 301 | 302 | 303 | 307 | 308;
  /** The `location` header, e.g. another origin's `http://127.0.0.2:4000/chat/completions`. */
  readonly location: string;
}

/**
 * How a streamed reply (a request with `stream: true`) is written and broken.
 * Positions count data events only (1-based; the usage chunk and `[DONE]` are
 * data events, comments are not).
 */
export interface StreamFault {
  /** `: keep-alive` comment lines before the first data event. Default: 2 while the primary thinks, else 0. */
  readonly keepAlives?: number;
  /** The pause before each keep-alive comment, in milliseconds. Default 0. */
  readonly keepAliveMs?: number;
  /** The pause between data events, in milliseconds. Default 0. */
  readonly eventMs?: number;
  /** Destroys the connection after this many data events (0: after the headers). */
  readonly cutAfterEvents?: number;
  /** Ends the body cleanly after this many data events (a server that stops early). */
  readonly endAfterEvents?: number;
  /** Writes this many data events, then nothing more, the connection kept open (a stall). */
  readonly stallAfterEvents?: number;
  /** The data event at this position is replaced by text that is not JSON. */
  readonly malformedAt?: number;
  /**
   * The data event at this position is replaced by an error event
   * (`{"error": {code, message, metadata}}`); the body ends there. The bill
   * counts the output written before it (`error_after_output`, or `refused` when
   * no text was written yet).
   */
  readonly errorAt?: number;
  /** The `code` of the `errorAt` event. Default 502. */
  readonly errorCode?: number;
  /**
   * Writes the `errorAt` event under the SSE event name `error`
   * (`event: error\ndata: {"error": …}\n\n`) instead of as a plain data event.
   * Needs `errorAt`.
   */
  readonly errorEvent?: boolean;
  /** Content deltas that never end (one word each), after the role chunk; until the client hangs up. */
  readonly endless?: boolean;
  /** Content deltas of this whitespace (one character each) before the answer's content. */
  readonly leadingWhitespace?: string;
  /** Leaves out the usage chunk even when `stream_options.include_usage` asked for it. */
  readonly noUsage?: boolean;
  /** Leaves out the closing `data: [DONE]`. */
  readonly noDone?: boolean;
  /**
   * The usage chunk's `usage` is this JSON value, exactly as given (`{}`,
   * `{prompt_tokens: '12'}`, `{input_tokens: 3, output_tokens: 5}`,
   * `{total_tokens: 9}`, negative counts, `null`…), in place of the real
   * counts. Only a stream that has a usage chunk (`include_usage` asked, no
   * `noUsage`). The bill still counts what was really generated.
   */
  readonly usage?: unknown;
  /**
   * Every chunk with a choice carries a running `usage`: the counts so far
   * (completion tokens of the text sent up to and with that chunk), as servers
   * with continuous usage stats send. The final usage chunk is still sent
   * (unless `noUsage`); `endless` deltas carry none.
   */
  readonly usageEveryChunk?: boolean;
  /** The usage chunk is sent twice, one right after the other. */
  readonly duplicateUsage?: boolean;
  /**
   * These raw bytes are written after `data: [DONE]\n\n` (at the end of the
   * events when there is none), before the body ends: e.g. `'data: {"late": true}\n\n'`
   * or bare text. They are not a data event (positions do not count them).
   */
  readonly afterDone?: string;
}

/**
 * One rule of a fault plan: which requests it applies to (every given selector
 * must match), how many times, and what it does to them.
 *
 * Effects, in order of precedence: `delayMs` waits first and combines with any
 * other effect; then the first of `reset`, `redirect`, `body`, `emptyBody`,
 * `whitespaceBody`, `endlessBody`, `deepErrorBody`, `errorInBody`,
 * `modelRejected`, `status` that is set answers instead of the emulator;
 * otherwise the request is answered normally, changed by `emptyContent`,
 * `noChoices`, `usage` and `truncate`. The delivery effects `trickleMs`,
 * `keepAliveNewlines`, `cutOff` and `cutOffAfterBytes` change how any body is written;
 * `stream` changes how a streamed reply is written (its events, pauses and breaks).
 *
 * @example `{ status: 429, retryAfter: 1, times: 1 }` — the next request gets a 429 with `retry-after: 1`.
 * @example `{ requests: [2, 3], model: 'primary-v4-pro', status: 503 }`
 * @example `{ endlessBody: true, status: 500 }` — a 500 whose JSON body never ends.
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
  /** Answers with a redirect status and a `location` header (pointing at another origin, say). */
  readonly redirect?: RedirectFault;
  /** Answers with this raw, usually non-JSON, text instead (status `status` or 200). */
  readonly body?: string;
  /** The content type of `body`. Default: `text/html`. */
  readonly contentType?: string;
  /** Answers 200 with a JSON content type and an empty body. */
  readonly emptyBody?: boolean;
  /** Answers `status` (default 200) with a JSON content type and a body of only whitespace: `"\n\n \n"`. */
  readonly whitespaceBody?: boolean;
  /**
   * Answers `status` (default 200) with a JSON body that never ends: for 200 it
   * starts like a chat reply (`{"id":"chatcmpl-…","object":"chat.completion",…"content":"`),
   * for another status like its JSON error (`{"error":{"message":"…`), then
   * filler text follows until the client hangs up or the emulator closes. Written
   * as fast as the client reads, or in pieces `trickleMs` apart.
   */
  readonly endlessBody?: boolean;
  /**
   * Answers `status` (default 400) with a JSON error nested this many levels
   * deep: `{"error":{"error":…{"message":"…","code":<status>}…}}` (e.g. 100_000).
   * The outer `error` has no string `message`, as in the observed replies.
   */
  readonly deepErrorBody?: number;
  /** Answers 200 with a body carrying an `error` object (the gateway's way of failing after the headers). */
  readonly errorInBody?: ErrorInBody;
  /**
   * Answers 400 rejecting the request's model in one of the platform's wordings:
   * `listing` "Model 'x' is not supported. Supported API model names: A, B";
   * `but-you-passed` "The supported API model names are A or B, but you passed x.";
   * `not-exist` "Model Not Exist".
   */
  readonly modelRejected?: ModelRejectionWording;
  /**
   * Answers with this HTTP status and a JSON error body (402, 429, 500, 503, ...),
   * or sets the status of `body`, `whitespaceBody`, `endlessBody` and `deepErrorBody`.
   */
  readonly status?: number;
  /** The error message of a `status` answer. Default: a message fitting the status. */
  readonly message?: string;
  /**
   * Sets the `retry-after` header: a number of seconds (any size: 86400 or
   * 2^31 and beyond are sent as written) or a string sent as is (an HTTP date, say).
   */
  readonly retryAfter?: number | string;
  /** Sets the `retry-after-ms` header to this many milliseconds. */
  readonly retryAfterMs?: number;
  /** Answers normally, but with the reply message's content empty (`''`). */
  readonly emptyContent?: boolean;
  /** Answers normally, but with `choices: []` (usage kept). */
  readonly noChoices?: boolean;
  /**
   * Answers normally, but the plain reply body's `usage` is this JSON value,
   * exactly as given (`{}`, string counts, `{input_tokens, output_tokens}`,
   * `null`…). For a streamed reply use `stream.usage`. The bill still counts
   * what was really generated.
   */
  readonly usage?: unknown;
  /** Answers `GET /models` normally, with its listing changed (the gateway's prices; see {@link ListingFault}). */
  readonly listing?: ListingFault;
  /** Answers 200 with a JSON content type and only the first half of the JSON body, as a complete response. */
  readonly truncate?: boolean;

  /**
   * Writes the body in pieces of `trickleBytes` bytes, this many milliseconds
   * apart (any body: the normal answer, an error, an endless body).
   */
  readonly trickleMs?: number;
  /** The size of each trickled piece in bytes. Default 8. */
  readonly trickleBytes?: number;
  /**
   * Sends the headers (status 200) at once, then this many `\n` keep-alive
   * newlines `keepAliveMs` apart, then the body (the normal answer, say).
   */
  readonly keepAliveNewlines?: number;
  /** The pause before each keep-alive newline and before the body. Default 100 ms. */
  readonly keepAliveMs?: number;
  /**
   * Announces the whole body's `content-length`, writes its first half, then
   * destroys the connection: a body cut off mid-way (unlike `truncate`, whose
   * half body ends cleanly).
   */
  readonly cutOff?: boolean;
  /**
   * Like `cutOff`, but sends this many bytes of the body first (0: the headers
   * only, then the connection is destroyed).
   */
  readonly cutOffAfterBytes?: number;
  /** How a streamed reply is written and broken mid-stream (only requests with `stream: true`). */
  readonly stream?: StreamFault;
}

/** A fault plan: rules tried in order; the first matching rule with uses left applies. */
export type FaultPlan = readonly FaultRule[];
