/**
 * The format version every cassette's first line carries: 2 since a long stream's
 * events may be written compactly (`reply.templates`, events `{ms, t, text}`);
 * readers read version 1 too.
 */
export const CASSETTE_VERSION = 2;

/** The endpoint record a cassette was recorded against (never a key). */
export interface RecordedEndpoint {
  readonly provider: string;
  readonly baseUrl: string;
  readonly thinking: boolean;
  /** The prices the record carried (USD per million tokens), or null. */
  readonly prices: Readonly<Record<string, number>> | null;
  /** The model whose prices the record carries, or null. */
  readonly pricingModel: string | null;
}

/** A cassette's first line. */
export interface CassetteHeader {
  /** The format version, {@link CASSETTE_VERSION}. */
  readonly cassette: number;
  /**
   * The record run that wrote the file (every process and resolution of one run
   * appends to it; a new run replaces it). Absent in cassettes of older versions.
   */
  readonly run?: string;
  /**
   * The runs whose cassette this run's first call replaced, most recent first (at most 16):
   * a recorder of one of them, in any process, never takes the file back.
   */
  readonly replaced?: readonly string[];
  /** Where the calls went, when the recorder was told (resolveChatEndpoint tells it). */
  readonly endpoint: RecordedEndpoint | null;
}

/** A failure as recorded: what a `ChatError` says, free of secrets. */
export interface RecordedError {
  readonly kind: string;
  readonly status: number | null;
  readonly message: string;
  readonly retryable: boolean;
  readonly retryAfterSeconds?: number;
  /** A `model_rejected` failure's model and the models the platform listed. */
  readonly model?: string;
  readonly supportedModels?: readonly string[];
}

/** One attempt of a call: when it ended (ms after the call started) and how (null: a reply was read). */
export interface RecordedAttempt {
  readonly ms: number;
  readonly error: RecordedError | null;
}

/** One event of a streamed reply, with the milliseconds since the previous one (or since the stream opened). */
export type RecordedStreamEvent =
  | { readonly ms: number; readonly data: string; readonly event?: string }
  | { readonly ms: number; readonly comment: string };

/** A plain reply: the payload as it arrived. */
export interface RecordedBody {
  readonly body: unknown;
}

/** A streamed reply: status, allowlisted headers, every event in order, and how it ended. */
export interface RecordedStream {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly events: readonly RecordedStreamEvent[];
  /** The failure that ended the stream after it opened, or null when it ended normally. */
  readonly end: RecordedError | null;
}

/** A call that failed before any reply. */
export interface RecordedFailure {
  readonly error: RecordedError;
}

/** What came back for a call. */
export type RecordedReply = RecordedBody | RecordedStream | RecordedFailure;

/** One raw call of a cassette, one line of its file. */
export interface CassetteEntry {
  /** 1-based position in the cassette, counted when it is read (older cassettes also stored it). */
  readonly call: number;
  /** The record run that wrote the line: always the header's (absent in cassettes of older versions). */
  readonly run?: string;
  /** The process (pid, thread and a random suffix) that recorded the call. */
  readonly process?: string;
  /** The call's 1-based number among the calls its process wrote to this file, in file order. */
  readonly seq?: number;
  /**
   * The test file that made the call, relative to the recording's working directory, when a test
   * runner (Vitest, Jest) said; a miss names the nearest recording of the same file first.
   */
  readonly test?: string;
  /** The match hash of `request` (see `requestHash`). */
  readonly match: string;
  /** Whether a key was sent with the call; null when the recorder was not told. Never the key. */
  readonly key: boolean | null;
  /** Whether the call was streamed. */
  readonly streamed: boolean;
  /** The normalised request: the body the wire carried, keys sorted, secrets replaced. */
  readonly request: Readonly<Record<string, unknown>>;
  /** The per-attempt timeout the call was made with (not matched). */
  readonly timeoutSeconds: number;
  /** Every attempt, in order; the last one ended the call (for a stream: when it opened). */
  readonly attempts: readonly RecordedAttempt[];
  readonly reply: RecordedReply;
  /** Milliseconds from the call's start to its reply (a stream: to its end). */
  readonly ms: number;
  /** How the cost model priced the reply's usage at recording time (its `CallPricing`), or null. */
  readonly pricing: Readonly<Record<string, unknown>> | null;
}
