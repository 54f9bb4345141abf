import { ChatError } from './chat-error.js';

const DEADLINE = Symbol.for('switchboard.call-deadline');

// When each deadline signal's call must end (performance.now() time), for a transport to look up.
const endsAt = new WeakMap<AbortSignal, number>();

/**
 * The total deadline of one `complete` call (`deadlineSeconds`): a signal that
 * aborts when the deadline passes (its reason a `ChatError` of kind `timeout`)
 * or when the caller's own signal aborts (with the caller's reason). It is the
 * signal every attempt, retry wait and the empty-JSON retry of the call listens to.
 */
export class CallDeadline {
  /** Aborts at the deadline, or with the caller's signal. */
  readonly signal: AbortSignal;
  readonly #controller = new AbortController();
  readonly #timer: NodeJS.Timeout;
  readonly #caller: AbortSignal | undefined;
  readonly #onCallerAbort = (): void => this.#controller.abort(this.#caller?.reason);

  constructor(seconds: number, caller: AbortSignal | undefined) {
    this.signal = this.#controller.signal;
    this.#caller = caller;
    if (caller?.aborted) this.#onCallerAbort();
    else caller?.addEventListener('abort', this.#onCallerAbort, { once: true });
    const milliseconds = Math.max(1, Math.round(seconds * 1000));
    endsAt.set(this.signal, performance.now() + milliseconds);
    this.#timer = setTimeout(() => this.#controller.abort(deadlineError(seconds)), milliseconds);
  }

  /** Stops the timer and lets go of the caller's signal: the call is over. */
  dispose(): void {
    clearTimeout(this.#timer);
    this.#caller?.removeEventListener('abort', this.#onCallerAbort);
  }
}

/** The error a call ends with when its total deadline passes. */
function deadlineError(seconds: number): ChatError {
  const error = new ChatError({
    kind: 'timeout',
    message: `the call passed its deadline of ${seconds} s (deadlineSeconds, over every attempt, retry wait and the empty-JSON retry)`,
    retryable: true,
  });
  Object.defineProperty(error, DEADLINE, { value: true });
  return error;
}

/** The deadline's `timeout` error when `reason` (an aborted signal's) is one, else undefined. */
export function deadlinePassed(reason: unknown): ChatError | undefined {
  return ChatError.isInstance(reason) && (reason as unknown as Record<symbol, unknown>)[DEADLINE] === true
    ? reason
    : undefined;
}

/** Milliseconds left before the total deadline behind `signal`, or undefined when it carries none. */
export function deadlineLeftMs(signal: AbortSignal | undefined): number | undefined {
  const end = signal === undefined ? undefined : endsAt.get(signal);
  return end === undefined ? undefined : end - performance.now();
}
