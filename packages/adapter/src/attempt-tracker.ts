import type {
  AttemptHandle,
  AttemptInfo,
  AttemptOutcome,
  CallObserver,
  OutputChunk,
} from './call-observer.js';
import type { CallRecord, ChargedScope, SettlementKind } from './call-record.js';
import { ChatError } from './chat-error.js';
import type { AttemptOverrides } from './chat-transport.js';
import { describeType } from './describe-type.js';
import { settlementOf } from './settlement-rule.js';

/** What every attempt of one raw call shares, told to observers with its attempt number. */
export type AttemptContext = Omit<AttemptInfo, 'attempt'>;

/**
 * Counts the attempts of one raw call and runs the observers' `beforeAttempt`
 * around each, ending every handle exactly once: with the error that ended its
 * attempt, or with the call's record when its attempt's reply was read.
 */
export class AttemptTracker {
  /**
   * Attempts that went on the wire: counted once every observer's `beforeAttempt`
   * let the attempt through, so a call a budget refused before sending has 0.
   */
  attempts = 0;
  readonly #context: AttemptContext;
  readonly #observers: readonly CallObserver[];
  #current: readonly AttemptHandle[] = NO_HANDLES;
  // Handles of the attempt whose reply was read, waiting for the record.
  #replied: readonly AttemptHandle[] = NO_HANDLES;
  #final: AttemptOutcome | null = null;
  // The current (or last) attempt: whether output arrived, whether its reply was read whole, whether it was sent.
  #output = false;
  #whole = false;
  #sent: boolean | undefined = undefined;
  // The last attempt's cap as an observer lowered it, and the budget scopes every attempt was charged to.
  #lowered: { readonly from: number | null; readonly to: number } | null = null;
  // Made when a second list of scopes is charged: most calls have one budget, or none.
  #charged: Map<string, number | null> | null = null;
  // Every scope charged so far, when one handle's own checked list said them all: kept as it is, no copy.
  #chargedList: readonly ChargedScope[] | null = null;

  constructor(context: AttemptContext, observers: readonly CallObserver[]) {
    this.#context = context;
    this.#observers = observers;
  }

  /**
   * Before an attempt goes on the wire: may wait, or reject to refuse it. Stays
   * synchronous while every observer answers at once; answers the attempt's overrides
   * (a lower `max_tokens`) when an observer's handle lowered its cap, else `undefined`.
   */
  before(attempt: number): undefined | AttemptOverrides | Promise<AttemptOverrides | undefined> {
    this.#output = false;
    this.#whole = false;
    this.#sent = undefined;
    const observers = this.#observers;
    if (observers.length === 0) {
      this.attempts += 1;
      return undefined;
    }
    return this.#acquire({ ...this.#context, attempt }, observers, 0, []);
  }

  /**
   * What the call's record tells of its attempts: the id they shared, the last one's lowered
   * cap, the budget scopes charged.
   */
  recordFacts(): Pick<CallRecord, 'callId' | 'maxTokensLowered' | 'budgets'> {
    const callId = this.#context.callId;
    if (this.#chargedList !== null)
      return { callId, maxTokensLowered: this.#lowered, budgets: this.#chargedList };
    if (this.#charged === null || this.#charged.size === 0)
      return { callId, maxTokensLowered: this.#lowered };
    const budgets: ChargedScope[] = [...this.#charged].map(([scope, limitUsd]) =>
      Object.freeze({ scope, limitUsd }),
    );
    return { callId, maxTokensLowered: this.#lowered, budgets: Object.freeze(budgets) };
  }

  /**
   * When an attempt `before` let through ends: `failure` null when its reply was read;
   * `sent` false when the transport knows the request never went on the wire.
   */
  after(_attempt: number, failure: unknown | null, sent?: boolean): void {
    this.#sent = sent;
    // A failure after the reply was read whole (bytes after a stream's `[DONE]`, say) does not unmake it.
    const failed = failure !== null && failure !== undefined && !this.#whole;
    if (!failed) this.#output = true;
    const handles = this.#current;
    this.#current = NO_HANDLES;
    if (handles.length === 0) return;
    if (failed) {
      const settlement = settlementOf({ failure, sent, outputArrived: this.#output, usage: null });
      endAll(handles, outcomeOf(null, failure, settlement));
    } else if (this.#final !== null) endAll(handles, this.#final);
    else this.#replied = this.#replied.length === 0 ? handles : [...this.#replied, ...handles];
  }

  /**
   * The current attempt failed after its transport counted it done (a stream that opened, then
   * broke before any delta reached the caller) and the call tries again: its handles, which
   * waited for the record, end now by the one rule, so the next attempt neither waits behind
   * their reservations nor lends them its own outcome.
   */
  retrying(failure: unknown): void {
    const handles = this.#replied;
    this.#replied = NO_HANDLES;
    if (handles.length === 0) return;
    const settlement = this.settlement(failure, null);
    endAll(handles, outcomeOf(null, failure, settlement));
  }

  /** Output of the current attempt arrived (a stream's chunk): it is never settled as free. */
  outputArrived(): void {
    this.#output = true;
  }

  /** The current attempt's reply was read whole (a stream's `[DONE]`): a failure after it is ignored. */
  replyWhole(): void {
    this.#whole = true;
    this.#output = true;
  }

  /**
   * The settlement of the raw call's last attempt, by the one rule: `failure` what ended
   * the call (null when its reply was read), `usage` the reply's final usage.
   */
  settlement(failure: unknown | null, usage: unknown): SettlementKind {
    if (this.attempts === 0) return 'none';
    const ended = this.#whole ? null : failure;
    return settlementOf({ failure: ended, sent: this.#sent, outputArrived: this.#output, usage });
  }

  /** The raw call is over: ends the handles that waited for its record, with its `settlement`. */
  finish(record: CallRecord, error: unknown | null, settlement: SettlementKind): void {
    // These attempts' replies were read: the provider billed them, whatever happened next.
    // A reply read whole settles at the record, also when the call then failed (a drained stream the caller broke off).
    const exact = error === null || settlement === 'exact';
    this.#final = outcomeOf(exact ? record : null, error, settlement);
    const handles = this.#replied;
    this.#replied = NO_HANDLES;
    endAll(handles, this.#final);
  }

  /**
   * Runs the observers' `beforeAttempt` from `from` on, collecting their handles:
   * synchronously until one answers with a promise, from there on asynchronously.
   */
  #acquire(
    info: AttemptInfo,
    observers: readonly CallObserver[],
    from: number,
    handles: AttemptHandle[],
  ): undefined | AttemptOverrides | Promise<AttemptOverrides | undefined> {
    let told = info;
    for (let index = from; index < observers.length; index += 1) {
      const observer = observers[index] as CallObserver;
      if (typeof observer.beforeAttempt !== 'function') continue;
      let answer: ReturnType<NonNullable<CallObserver['beforeAttempt']>>;
      try {
        answer = observer.beforeAttempt(told);
      } catch (error) {
        return Promise.reject(refuse(handles, error));
      }
      if (isThenable(answer)) {
        return Promise.resolve(answer).then(
          (handle) => this.#acquire(kept(told, handles, handle), observers, index + 1, handles),
          (error: unknown) => {
            throw refuse(handles, error);
          },
        );
      }
      told = kept(told, handles, answer);
    }
    this.#current = handles;
    this.attempts += 1;
    for (const handle of handles) this.#chargeHandle(handle);
    const sent = told.maxTokens;
    const asked = this.#context.maxTokens;
    this.#lowered = sent !== null && sent !== asked ? Object.freeze({ from: asked, to: sent }) : null;
    return this.#lowered === null ? undefined : { maxTokens: this.#lowered.to };
  }

  /** Notes the scopes `handle` says its attempt was charged to. */
  #chargeHandle(handle: AttemptHandle): void {
    const whole = checkedList(handle);
    if (
      whole !== null &&
      (this.#chargedList === whole || (this.#chargedList === null && this.#charged === null))
    ) {
      this.#chargedList = whole;
      return;
    }
    // Another list (a second handle, or a retry charged elsewhere): every scope into the map.
    const kept = this.#chargedList;
    this.#chargedList = null;
    if (kept !== null) for (const charged of kept) this.#charge(charged);
    for (const charged of whole ?? chargedOf(handle)) this.#charge(charged);
  }

  #charge(charged: ChargedScope): void {
    this.#charged ??= new Map();
    if (this.#charged.size >= MAX_CHARGED_SCOPES && !this.#charged.has(charged.scope)) return;
    this.#charged.set(charged.scope, charged.limitUsd);
  }
}

// No handles: shared, never written to (a list of handles is replaced, not added to).
const NO_HANDLES: readonly AttemptHandle[] = Object.freeze([]);

/** The most budget scopes a record lists (a journal line's reader takes 16). */
const MAX_CHARGED_SCOPES = 16;

/**
 * Keeps an observer's answer when it is a handle; answers the info the next observer is
 * told: with the handle's lower cap, when the adapter can send it.
 */
function kept(info: AttemptInfo, handles: AttemptHandle[], handle: unknown): AttemptInfo {
  if (typeof (handle as AttemptHandle | null)?.end !== 'function') return info;
  const kept = handle as AttemptHandle;
  handles.push(kept);
  const cap = readCap(kept);
  if (info.canLowerMaxTokens !== true || cap === undefined) return info;
  if (info.maxTokens !== null && info.maxTokens <= cap) return info;
  return { ...info, maxTokens: cap };
}

/** A handle's `maxTokens` when a positive integer (a getter that throws counts as none). */
function readCap(handle: AttemptHandle): number | undefined {
  try {
    const cap = handle.maxTokens;
    return Number.isSafeInteger(cap) && (cap as number) >= 1 ? cap : undefined;
  } catch {
    return undefined;
  }
}

// Lists a handle gave that a record may hold as they are (see checkedList).
const checkedLists = new WeakSet<readonly ChargedScope[]>();

/**
 * A handle's `budgets` when the record may hold that very list: a frozen array of at most
 * {@link MAX_CHARGED_SCOPES} frozen `{ scope, limitUsd }` records (those keys alone, in that
 * order, well-formed), each scope once: what a copy would hold, and it cannot change. Checked
 * once per list (a budget hands the same list to each attempt of a scope); null otherwise.
 */
function checkedList(handle: AttemptHandle): readonly ChargedScope[] | null {
  let budgets: unknown;
  try {
    budgets = handle.budgets;
  } catch {
    return null;
  }
  if (!Array.isArray(budgets)) return null;
  if (checkedLists.has(budgets)) return budgets;
  if (!Object.isFrozen(budgets) || budgets.length > MAX_CHARGED_SCOPES) return null;
  const scopes = new Set<string>();
  for (const entry of budgets as unknown[]) {
    if (!isPlainCharged(entry) || scopes.has(entry.scope)) return null;
    scopes.add(entry.scope);
  }
  checkedLists.add(budgets);
  return budgets;
}

function isPlainCharged(entry: unknown): entry is ChargedScope {
  if (typeof entry !== 'object' || entry === null || !Object.isFrozen(entry)) return false;
  if (Object.getPrototypeOf(entry) !== Object.prototype) return false;
  const keys = Object.keys(entry);
  if (keys.length !== 2 || keys[0] !== 'scope' || keys[1] !== 'limitUsd') return false;
  const scope = Object.getOwnPropertyDescriptor(entry, 'scope');
  const limit = Object.getOwnPropertyDescriptor(entry, 'limitUsd');
  return (
    scope !== undefined &&
    'value' in scope &&
    typeof scope.value === 'string' &&
    limit !== undefined &&
    'value' in limit &&
    (limit.value === null || (typeof limit.value === 'number' && Number.isFinite(limit.value)))
  );
}

/** The well-formed scopes a handle says its attempt was charged to. */
function chargedOf(handle: AttemptHandle): ChargedScope[] {
  try {
    const budgets = handle.budgets;
    if (!Array.isArray(budgets)) return [];
    return budgets.filter(
      (entry: ChargedScope | null) =>
        typeof entry?.scope === 'string' &&
        (entry.limitUsd === null || (typeof entry.limitUsd === 'number' && Number.isFinite(entry.limitUsd))),
    );
  } catch {
    return [];
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

/** The attempt is refused: the leases already taken are given back, and `error` is passed on. */
function refuse(handles: readonly AttemptHandle[], error: unknown): unknown {
  endAll(handles, outcomeOf(null, error, 'none'));
  return error;
}

function outcomeOf(
  record: CallRecord | null,
  error: unknown | null,
  settlement: SettlementKind,
): AttemptOutcome {
  return {
    record,
    error: error === null || error === undefined ? null : errorOf(error),
    settlement,
    mayHaveBeenBilled: settlement !== 'none',
  };
}

/** Tells each observer the raw call's record; an observer's error never breaks the call. */
/** Tells each observer with `afterChunk` of one output chunk; an observer that throws is ignored. */
export function notifyAfterChunk(observers: readonly CallObserver[], chunk: OutputChunk): void {
  for (const observer of observers) {
    if (typeof observer.afterChunk !== 'function') continue;
    try {
      swallow(observer.afterChunk(chunk));
    } catch {
      // Observers must not throw; one that does is ignored.
    }
  }
}

export function notifyAfterCall(observers: readonly CallObserver[], record: CallRecord): void {
  for (const observer of observers) {
    if (typeof observer.afterCall !== 'function') continue;
    try {
      swallow(observer.afterCall(record));
    } catch {
      // Observers must not throw; one that does is ignored.
    }
  }
}

function endAll(handles: readonly AttemptHandle[], outcome: AttemptOutcome): void {
  for (const handle of handles) {
    try {
      swallow(handle.end(outcome));
    } catch {
      // A handle's end must not throw; one that does is ignored.
    }
  }
}

function swallow(result: unknown): void {
  if (
    typeof result === 'object' &&
    result !== null &&
    typeof (result as Promise<unknown>).catch === 'function'
  ) {
    (result as Promise<unknown>).catch(() => {});
  }
}

/** What ended an attempt, as an `Error`: a stub that threw a string is wrapped, the value as `cause`. */
function errorOf(failure: unknown): Error {
  if (failure instanceof Error || ChatError.isInstance(failure)) return failure as Error;
  return new Error(`the attempt failed with a non-Error value (${describeType(failure)})`, {
    cause: failure,
  });
}
