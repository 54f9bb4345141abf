import { NANO_USD_PER_USD as NANO } from '@switchboard/prices';

/**
 * A running sum of nano-dollars, exact however large: whole dollars and the
 * nano-dollars under one, each a safe integer.
 */
export class NanoSum {
  #dollars = 0;
  #nanos = 0;

  /** Adds a whole, non-negative number of nano-dollars. */
  add(nanoUsd: number): void {
    const nanos = nanoUsd % NANO;
    this.#dollars += (nanoUsd - nanos) / NANO;
    this.#nanos += nanos;
    if (this.#nanos >= NANO) {
      this.#nanos -= NANO;
      this.#dollars += 1;
    }
  }

  /** Adds another sum. */
  addSum(other: NanoSum): void {
    this.#dollars += other.#dollars;
    this.add(other.#nanos);
  }

  /** The sum in nano-dollars (exact up to 2^53, about $9 million). */
  get nanoUsd(): number {
    return this.#dollars * NANO + this.#nanos;
  }

  /** The sum in USD, as a number. */
  get usd(): number {
    return this.#dollars + this.#nanos / NANO;
  }

  /** The sum as an exact decimal with nine places, e.g. `12.000340000`. */
  get decimal(): string {
    return `${this.#dollars}.${String(this.#nanos).padStart(9, '0')}`;
  }
}

/** Nano-dollars as an exact decimal with nine places (`1234` -> `0.000001234`). */
export function nanoDecimal(nanoUsd: number): string {
  const sum = new NanoSum();
  sum.add(nanoUsd);
  return sum.decimal;
}
