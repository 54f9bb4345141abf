import { ChatError } from '@switchboard/adapter';

/** Options of a {@link CassetteMissError}. */
export interface CassetteMissErrorOptions {
  /** The whole message: the request, the nearest recording and how they differ. */
  message: string;
  /** The cassette file. */
  path: string;
  /** The nearest recorded call's number, or null when the cassette holds none. */
  nearestCall: number | null;
  /** How the request differs from the nearest recording, one line per difference. */
  differences: readonly string[];
}

/**
 * A strict replay found no recording for a request (kind `cassette_miss`, never
 * retryable); nothing was sent. The message shows the nearest recorded request and
 * how this one differs, with secrets already removed.
 */
export class CassetteMissError extends ChatError {
  override readonly name: string = 'CassetteMissError';
  /** The cassette file. */
  readonly path: string;
  /** The nearest recorded call's number, or null. */
  readonly nearestCall: number | null;
  /** How the request differs from the nearest recording. */
  readonly differences: readonly string[];

  constructor(options: CassetteMissErrorOptions) {
    super({ kind: 'cassette_miss', message: options.message, retryable: false });
    this.path = options.path;
    this.nearestCall = options.nearestCall;
    this.differences = Object.freeze([...options.differences]);
  }
}
