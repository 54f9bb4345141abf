/**
 * What the wire path reads of a reply: its status, headers and body, read chunk by chunk.
 * A fetch `Response` is one as it is (`FetchTransport`, `OpenAIClientTransport`); the Node
 * transport's reply over `node:http` is another (`NodeReply`). The body readers, the stream
 * reader, the redirect refusal and the error mapping take this, so each rule has one home
 * whatever sent the request.
 */
export interface WireReply {
  readonly status: number;
  /**
   * `'basic'` for a reply read off the network by the transport itself, whose `content-length`
   * tells the truth about an unencoded body; anything else for a reply built in code.
   */
  readonly type: string;
  readonly headers: ReplyHeaders;
  /** The body, after any `Content-Encoding` was undone; null when there is none. */
  readonly body: ReplyBody | null;
}

/** A reply's headers: looked up by name (any case), and listed as lower-case `[name, value]` pairs. */
export interface ReplyHeaders extends Iterable<[string, string]> {
  get(name: string): string | null;
}

/** A reply's body: one reader, or cancelled unread (the connection dropped). */
export interface ReplyBody {
  /**
   * True when the transport ends the body itself as the attempt that sent its request
   * ends (its deadline, the caller's signal): a pending read then rejects by itself, so a
   * reader need not race each read against the attempt's end.
   */
  readonly endsWithAttempt?: boolean;
  getReader(): BodyReader;
  cancel(reason?: unknown): Promise<void>;
}

/** Reads a body chunk by chunk, as a web stream's default reader does. */
export interface BodyReader {
  read(): Promise<BodyChunk>;
  /** Stops reading: what is left is dropped with the connection. */
  cancel(reason?: unknown): Promise<void>;
}

/** One read of a body: a chunk, or its end. */
export type BodyChunk = { done: false; value: Uint8Array } | { done: true; value?: Uint8Array | undefined };
