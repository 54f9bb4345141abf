import { deadlinePassed } from './call-deadline.js';
import { ChatError } from './chat-error.js';
import { redactError } from './redact.js';
import { type CallContext, describeCall } from './to-chat-error.js';
import type { ReplyHeaders } from './wire-reply.js';

/**
 * One attempt of a call: its deadline (request start to the last byte of the
 * body), the caller's signal, and what ended it. The fetch wrapper and the
 * body reader record failures here, so the SDK's own wrapping of them is never
 * what the caller sees.
 */
export class CallAttempt {
  /** What ended the attempt, when something did. */
  failure: ChatError | undefined;
  /** The headers of the reply, once they arrived. */
  headers: ReplyHeaders | undefined;
  /** The status of the reply, once its headers arrived. */
  status: number | null = null;
  /** True once the request was handed to the network (it may have reached the provider). */
  sent = false;
  /** When the attempt started (`performance.now()`). */
  readonly startedAt = performance.now();

  // Made when `signal` is first read: a transport that listens with `onEnd` costs no AbortController.
  #controller: AbortController | undefined;
  #onEnd: (() => void) | undefined;
  readonly #timer: NodeJS.Timeout;
  #ended: Promise<never> | undefined;
  // The failure the attempt ended with (its deadline, the caller's signal, an abort): the signal's reason.
  #ending: ChatError | undefined;
  #rejectEnded: ((failure: ChatError) => void) | undefined;
  readonly #callerSignal: AbortSignal | undefined;
  readonly #onCallerAbort: (() => void) | undefined;

  constructor(
    /** 1-based. */
    readonly number: number,
    readonly context: CallContext,
    callerSignal: AbortSignal | undefined,
  ) {
    this.#timer = setTimeout(() => this.#end(timeoutError(context, this.status)), context.timeoutMs);
    this.#callerSignal = callerSignal;
    if (callerSignal) {
      this.#onCallerAbort = () => this.#end(abortedError(context, callerSignal));
      callerSignal.addEventListener('abort', this.#onCallerAbort, { once: true });
    }
  }

  /** Aborted when the deadline passes or the caller's signal aborts (already aborted when read after). */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#ending !== undefined) this.#controller.abort(this.#ending);
    }
    return this.#controller.signal;
  }

  /** True once the attempt ended (its deadline, the caller's signal, an abort). */
  get aborted(): boolean {
    return this.#ending !== undefined;
  }

  /**
   * `listener` is told once when the attempt ends, as the signal's `abort` would be, without
   * an `AbortSignal` and its listeners. One listener at a time (the request the attempt has on
   * the wire), in place of any set before.
   */
  onEnd(listener: () => void): void {
    this.#onEnd = listener;
  }

  /** Stops telling `listener`, when it is the one set. */
  offEnd(listener: () => void): void {
    if (this.#onEnd === listener) this.#onEnd = undefined;
  }

  /** Records the failure that ended the attempt (the first one wins). */
  fail(failure: ChatError): ChatError {
    this.failure ??= failure;
    return this.failure;
  }

  /** Ends the attempt with `failure` (the first one wins) and aborts its request: the connection is dropped. */
  abort(failure: ChatError): void {
    this.#end(failure);
  }

  /**
   * Rejects with the failure that ends the attempt (its deadline, the caller's signal, an abort),
   * for a read to race against: the same end as the signal's, without a listener on it.
   */
  get ended(): Promise<never> {
    if (this.#ended === undefined) {
      this.#ended =
        this.#ending !== undefined
          ? Promise.reject(this.#ending)
          : new Promise<never>((_, reject) => {
              this.#rejectEnded = reject;
            });
      this.#ended.catch(() => {});
    }
    return this.#ended;
  }

  /** Stops the deadline and lets go of the caller's signal. */
  dispose(): void {
    clearTimeout(this.#timer);
    if (this.#onCallerAbort) this.#callerSignal?.removeEventListener('abort', this.#onCallerAbort);
  }

  #end(failure: ChatError): void {
    this.fail(failure);
    if (this.#ending !== undefined) return;
    this.#ending = failure;
    this.#controller?.abort(failure);
    this.#rejectEnded?.(failure);
    const listener = this.#onEnd;
    this.#onEnd = undefined;
    listener?.();
  }
}

/** The attempt's deadline passed before the last byte of the reply (`status` when its headers had arrived). */
function timeoutError(context: CallContext, status: number | null): ChatError {
  const what = status === null ? 'no reply' : 'the reply body did not end';
  return new ChatError({
    kind: 'timeout',
    status,
    message: `${describeCall(context, status ?? undefined)}: ${what} within ${context.timeoutMs} ms (per attempt)`,
    retryable: true,
  });
}

/** The caller's signal cancelled the call (never retried), or the call's total deadline passed (a `timeout`). */
export function abortedError(context: CallContext, signal: AbortSignal): ChatError {
  const reason: unknown = signal.reason;
  const deadline = deadlinePassed(reason);
  if (deadline !== undefined) {
    return new ChatError({
      kind: 'timeout',
      message: `${describeCall(context)}: ${deadline.message}`,
      retryable: deadline.retryable,
    });
  }
  return new ChatError({
    kind: 'aborted',
    message: `${describeCall(context)}: cancelled by the caller's signal`,
    ...(reason === undefined ? {} : { cause: redactError(reason, context.apiKey) }),
  });
}
