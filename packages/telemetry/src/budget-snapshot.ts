/** One scope's figures, as a budget's `usage()` reports them (the fields `budgetMetrics` reads). */
export interface MeteredScope {
  /** The scope's path, e.g. `service` or `service/judge`. */
  readonly scope: string;
  /** Its spend limit in USD, or null for none. */
  readonly limitUsd: number | null;
  /** Settled costs plus unsettled worst cases, USD (in the current window, for a windowed scope). */
  readonly spentUsd: number;
  /** Held by calls in flight, USD. */
  readonly reservedUsd: number;
  /** Calls (attempts) in flight. */
  readonly inFlight: number;
}

/** A refusal as a budget tells it (`BudgetError`: its `reason` and `scope`). */
export interface MeteredRefusal {
  readonly reason: string;
  readonly scope: string | null;
}

/**
 * What `budgetMetrics` reads of a budget: a `Budget` of `@switchboard/budget` is one. `roles` and
 * `onRefusal` may be absent (a budget of an older version): then only `usage()`'s scopes are
 * shown, and no refusal is counted.
 */
export interface MeteredBudget {
  /** The scopes of the budget's chain (root first), and with `role` that role's scope too. */
  usage(role?: string): Promise<readonly MeteredScope[]>;
  /** The names of the budget's roles: each role's scope is shown too. */
  readonly roles?: readonly string[];
  /** Tells `listener` each refusal; returns a function that stops it. */
  onRefusal?(listener: (refusal: MeteredRefusal) => void): () => void;
}

/** Most scopes one snapshot holds: gauges of more would pass the metrics SDK's default cardinality limit (2,000). */
export const MAX_METERED_SCOPES = 1_000;

/**
 * The last figures of a budget's scopes, read with `usage()` now and then every `intervalMs` in
 * the background (a timer that keeps no process alive), one read at a time: a collection of the
 * gauges reads these, never the store. A read that fails keeps the figures of the last one that
 * succeeded; the first failure of a run of them is a process warning.
 */
export class BudgetSnapshot {
  readonly #budget: MeteredBudget;
  readonly #timer: ReturnType<typeof setInterval>;
  #scopes: readonly MeteredScope[] = [];
  #reading: Promise<void> | null = null;
  #failing = false;
  #closed = false;

  constructor(budget: MeteredBudget, intervalMs: number) {
    this.#budget = budget;
    this.#timer = setInterval(() => void this.refresh(), intervalMs);
    this.#timer.unref?.();
    void this.refresh();
  }

  /** The scopes as last read (none before the first read ends), root first, each once. */
  get scopes(): readonly MeteredScope[] {
    return this.#scopes;
  }

  /** Reads the figures again, or joins the read under way; never rejects. */
  refresh(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#reading ??= this.#read().finally(() => {
      this.#reading = null;
    });
    return this.#reading;
  }

  /** Stops the timer; a read under way is dropped when it ends. */
  close(): void {
    this.#closed = true;
    clearInterval(this.#timer);
  }

  async #read(): Promise<void> {
    try {
      const roles = Array.isArray(this.#budget.roles) ? this.#budget.roles : [];
      const reads = await Promise.all([
        this.#budget.usage(),
        ...roles.map((role) => this.#budget.usage(role)),
      ]);
      if (this.#closed) return;
      const byScope = new Map<string, MeteredScope>();
      for (const scope of reads.flat()) {
        if (byScope.size === MAX_METERED_SCOPES) break;
        if (typeof scope?.scope === 'string' && !byScope.has(scope.scope)) byScope.set(scope.scope, scope);
      }
      this.#scopes = [...byScope.values()];
      this.#failing = false;
    } catch (error) {
      if (this.#failing || this.#closed) return;
      this.#failing = true;
      process.emitWarning(
        `budget metrics: the budget's usage could not be read (${error instanceof Error ? error.message : String(error)}); the gauges keep the last figures read`,
        { code: 'SWITCHBOARD_BUDGET_METRICS' },
      );
    }
  }
}
