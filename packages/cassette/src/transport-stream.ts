import type { TransportRequest } from '@switchboard/adapter';

/** One Server-Sent Event of a streamed reply, unparsed: an event's data (`[DONE]` included) or a comment line. */
export type StreamEvent = { readonly data: string; readonly event?: string } | { readonly comment: string };

/**
 * An open streamed reply as a transport's `streamChatRaw` resolves it: the
 * status, the headers (names lower-case), the events in wire order, and `close`.
 */
export interface TransportEventStream extends AsyncIterable<StreamEvent> {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  close(failure?: unknown): void;
  /** An event already read, without a promise of its own; undefined when none is waiting (then call `next()`). */
  takeBuffered?(): StreamEvent | undefined;
}

/** A transport that may stream: `streamChatRaw` resolves once a 2xx response's headers arrived. */
export interface StreamingTransport {
  streamChatRaw?(request: TransportRequest): Promise<TransportEventStream>;
}
