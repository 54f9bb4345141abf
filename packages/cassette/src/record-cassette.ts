import type { ChatTransport, CostModel, TransportRequest } from '@switchboard/adapter';
import type { RecordedEndpoint } from './cassette-entry.js';
import { defaultRunId } from './cassette-file.js';
import { CassetteWriter } from './cassette-writer.js';
import { hasControlCharacter } from './control-characters.js';
import { messageOf } from './message-of.js';
import { type RecordContext, recordPlainCall, recordStreamCall } from './record-call.js';
import { environmentSecrets, secretRules } from './secret-scan.js';
import type { StreamingTransport, TransportEventStream } from './transport-stream.js';

/** Options of {@link recordCassette}. */
export interface RecordCassetteOptions {
  /**
   * The key the transport sends: it is removed from everything written (and a
   * line that would still hold it, say base64-encoded, is refused), and whether
   * it is empty is recorded as `key: true|false`. Never written, nor anything
   * derived from it. Default: unknown (`key: null`; only credential shapes are removed).
   */
  apiKey?: string;
  /** The endpoint record the calls go to, kept in the cassette's header (replay returns it). */
  endpoint?: RecordedEndpoint | null;
  /** Prices each reply as the adapter will (the endpoint); the cassette carries the pricing. Default none. */
  costModel?: CostModel | null;
  /**
   * The record run this recorder belongs to: recorders of one run (any process,
   * any resolution) append to the same file; the first call of a new run replaces
   * a cassette of another run, once. Default: `SWITCHBOARD_CASSETTE_RUN`, else the
   * process group of the command that started the process (a test runner's workers share it).
   */
  run?: string;
  /**
   * More values to remove, besides the key and the values of the environment's
   * secret variables (`*API_KEY`, `*_TOKEN`, `*_SECRET`, `*_PASSWORD`...).
   */
  secrets?: readonly string[];
  /** The environment whose secret variables are removed too, and `SWITCHBOARD_CASSETTE_RUN` read from. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * A transport that makes every call through `transport` and records it to the
 * cassette at `path`: the normalised request, every attempt, the reply as it
 * arrived (a stream: each event with its delay) and how it was priced, one JSON
 * line per call appended as each call ends. Every recorder of one run (see
 * `options.run`), in this process or another, appends to the same file; a
 * cassette of another run is replaced by the run's first call.
 */
export function recordCassette(
  path: string,
  transport: ChatTransport,
  options: RecordCassetteOptions = {},
): RecordingTransport {
  if (typeof path !== 'string' || path === '') throw new TypeError('path must be a non-empty file path');
  if (typeof transport !== 'object' || transport === null || typeof transport.completeChat !== 'function') {
    throw new TypeError('transport must be an object with a completeChat(request) method');
  }
  const apiKey = options.apiKey;
  if (apiKey !== undefined && typeof apiKey !== 'string')
    throw new TypeError('options.apiKey must be a string');
  const env = options.env ?? process.env;
  const run = options.run ?? defaultRunId(env);
  if (typeof run !== 'string' || run.trim() === '' || run.length > 200 || hasControlCharacter(run)) {
    throw new TypeError(
      'options.run must be a non-empty string of at most 200 characters, without control characters',
    );
  }
  const rules = secretRules([
    ...(apiKey === undefined ? [] : [apiKey]),
    ...(options.secrets ?? []).map((value) => ({ value, name: 'a secret of options.secrets' })),
    ...environmentSecrets(env),
  ]);
  const writer = CassetteWriter.create(path, rules, options.endpoint ?? null, run);
  const costModel = options.costModel ?? null;
  return new RecordingTransport(transport, {
    writer,
    keyPresent: apiKey === undefined ? null : apiKey !== '',
    costModel: () => costModel,
  });
}

/** The transport {@link recordCassette} returns: the wrapped one's behaviour, every call recorded. */
export class RecordingTransport implements ChatTransport {
  /** As the wrapped transport: true when it reports each attempt (its retries are recorded one by one). */
  readonly reportsAttempts: boolean;
  /**
   * As the wrapped transport: true when it sends each attempt with the overrides its
   * `beforeAttempt` answered (a `max_tokens` a budget with `fitMaxTokens` lowered); the
   * call is then recorded with the cap its first attempt was sent with.
   */
  readonly appliesAttemptOverrides: boolean;
  readonly #inner: ChatTransport & StreamingTransport;
  readonly #context: RecordContext;

  /** @internal */
  constructor(inner: ChatTransport, context: RecordContext) {
    this.#inner = inner;
    this.#context = context;
    this.reportsAttempts = inner.reportsAttempts === true;
    this.appliesAttemptOverrides = inner.appliesAttemptOverrides === true;
  }

  /** The cassette file. */
  get path(): string {
    return this.#context.writer.path;
  }

  completeChatRaw(request: TransportRequest): Promise<unknown> {
    return recordPlainCall(this.#context, this.#inner, request);
  }

  async completeChat(request: TransportRequest): Promise<Record<string, unknown>> {
    return messageOf(await this.completeChatRaw(request));
  }

  /** Streams through the wrapped transport (which must stream), recording each event. */
  streamChatRaw(request: TransportRequest): Promise<TransportEventStream> {
    return recordStreamCall(this.#context, this.#inner, request);
  }

  /** A copy over the wrapped transport's copy, writing to the same cassette. */
  withMaxAttempts(attempts: number): RecordingTransport {
    const inner = this.#inner.withMaxAttempts?.(attempts) ?? this.#inner;
    return newRecordingTransport(inner, this.#context);
  }

  /** The wrapped transport's model listing (not recorded). */
  listModels(options?: { timeoutSeconds?: number }): Promise<string[]> {
    if (typeof this.#inner.listModels !== 'function') {
      return Promise.reject(new TypeError('the recorded transport cannot list models'));
    }
    return this.#inner.listModels(options);
  }

  /** Only the cassette's path: never the wrapped transport's key. */
  toJSON(): { cassette: string } {
    return { cassette: this.path };
  }
}

/**
 * `new RecordingTransport(...)` from outside the class body: a class that names itself inside its
 * body is renamed by the bundler (`_RecordingTransport`), and the class's name is what users see.
 */
function newRecordingTransport(
  ...args: ConstructorParameters<typeof RecordingTransport>
): RecordingTransport {
  return new RecordingTransport(...args);
}
