import type { CallObserver } from './call-observer.js';

const none: readonly CallObserver[] = Object.freeze([]);

/**
 * The observers an adapter calls: its parent's (a bounded copy sees every
 * observer of the adapter it came from, also ones added later) and its own.
 */
export class ObserverChain {
  readonly #parent: ObserverChain | null;
  #own: readonly CallObserver[] = none;

  constructor(parent: ObserverChain | null, observers: readonly CallObserver[] = none) {
    this.#parent = parent;
    for (const observer of observers) this.add(observer);
  }

  /** Adds an observer; the returned function removes it (once; later calls do nothing). */
  add(observer: CallObserver): () => void {
    checkObserver(observer);
    // Copy on write: a call already iterating keeps the list it started with.
    this.#own = Object.freeze([...this.#own, observer]);
    let removed = false;
    return () => {
      if (removed) return;
      removed = true;
      const index = this.#own.indexOf(observer);
      if (index >= 0) this.#own = Object.freeze(this.#own.filter((_, at) => at !== index));
    };
  }

  /** Every observer, the parent's first, in the order they were added. */
  list(): readonly CallObserver[] {
    const inherited = this.#parent === null ? none : this.#parent.list();
    if (inherited.length === 0) return this.#own;
    return this.#own.length === 0 ? inherited : [...inherited, ...this.#own];
  }
}

function checkObserver(observer: unknown): void {
  const valid =
    typeof observer === 'object' &&
    observer !== null &&
    ['beforeAttempt', 'afterCall', 'afterChunk'].every((name) => {
      const method = (observer as Record<string, unknown>)[name];
      return method === undefined || typeof method === 'function';
    });
  if (!valid) {
    throw new TypeError(
      'observer must be an object with optional beforeAttempt(info), afterCall(record) and afterChunk(chunk) methods',
    );
  }
}
