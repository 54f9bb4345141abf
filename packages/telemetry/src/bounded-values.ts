import { boundedString } from './bounded-string.js';

/** The value distinct values beyond the cap are reported as. */
const OTHER_VALUE = 'other';

/**
 * Keeps one metric attribute's distinct values under a cap: the first `cap`
 * values seen pass (cut to a bounded length), every later new value becomes
 * `other`, and the first such value raises one process warning. This holds the
 * metric series of one observer under the SDK's cardinality limit.
 */
export class BoundedValues {
  readonly #cap: number;
  readonly #attribute: string;
  readonly #seen = new Set<string>();
  #warned = false;

  constructor(attribute: string, cap: number) {
    this.#attribute = attribute;
    this.#cap = cap;
  }

  /** `value` (bounded in length) while it is one of the first `cap` distinct values, else `other`. */
  of(value: string): string {
    const bounded = boundedString(value);
    if (this.#seen.has(bounded)) return bounded;
    if (this.#seen.size < this.#cap) {
      this.#seen.add(bounded);
      return bounded;
    }
    if (!this.#warned) {
      this.#warned = true;
      process.emitWarning(
        `more than ${this.#cap} distinct ${this.#attribute} values: later ones are reported as '${OTHER_VALUE}' on metrics (spans keep them)`,
        { code: 'SWITCHBOARD_TELEMETRY_CARDINALITY' },
      );
    }
    return OTHER_VALUE;
  }
}
