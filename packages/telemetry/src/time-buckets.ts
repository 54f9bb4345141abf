import { NanoSum } from './nano-usd.js';

/** Most bars a chart over time has: the bucket size grows with the data's range to keep within it. */
const MAX_BUCKETS = 60;
/** Most roles (and error kinds) a bucket keeps apart; the rest count together as others. */
const MAX_SERIES_PER_BUCKET = 12;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
// Bucket sizes, smallest first; past the last, each size doubles.
const SIZES: ReadonlyArray<readonly [number, string]> = [
  [MINUTE, 'minute'],
  [5 * MINUTE, '5 minutes'],
  [15 * MINUTE, '15 minutes'],
  [HOUR, 'hour'],
  [6 * HOUR, '6 hours'],
  [DAY, 'day'],
  [7 * DAY, 'week'],
  [30 * DAY, '30 days'],
  [365 * DAY, '365 days'],
];

/** One bucket's running figures. */
export interface Bucket {
  readonly cost: NanoSum;
  calls: number;
  failures: number;
  /** Cost by role (at most MAX_SERIES_PER_BUCKET roles; the rest under `others`). */
  readonly roles: Map<string, NanoSum>;
  readonly otherRoles: NanoSum;
  /** Failed calls by error kind (at most MAX_SERIES_PER_BUCKET kinds; the rest under `otherErrors`). */
  readonly errors: Map<string, number>;
  otherErrors: number;
}

/**
 * Calls summed into time buckets whose size is chosen from the data's range:
 * never more than {@link MAX_BUCKETS} of them in memory or in a chart, whatever
 * the times (lines may come in any order).
 */
export class TimeBuckets {
  #sizeIndex = 0;
  #buckets = new Map<number, Bucket>();
  #first = Number.POSITIVE_INFINITY;
  #last = Number.NEGATIVE_INFINITY;

  /** The bucket size in ms. */
  get size(): number {
    return sizeAt(this.#sizeIndex)[0];
  }

  /** The bucket size in words (`minute`, `hour`, `365 days`...). */
  get label(): string {
    return sizeAt(this.#sizeIndex)[1];
  }

  /** The bucket of a call at `at` (epoch ms), grown coarser first if the range needs it. */
  bucketAt(at: number): Bucket {
    this.#first = Math.min(this.#first, at);
    this.#last = Math.max(this.#last, at);
    while (Math.floor(this.#last / this.size) - Math.floor(this.#first / this.size) >= MAX_BUCKETS)
      this.#coarsen();
    const start = Math.floor(at / this.size) * this.size;
    let bucket = this.#buckets.get(start);
    if (bucket === undefined) {
      bucket = emptyBucket();
      this.#buckets.set(start, bucket);
    }
    return bucket;
  }

  /** Every bucket from the first call's to the last's, empty ones included, oldest first. */
  all(): Array<readonly [start: number, bucket: Bucket]> {
    if (this.#buckets.size === 0) return [];
    const result: Array<readonly [number, Bucket]> = [];
    const last = Math.floor(this.#last / this.size) * this.size;
    for (let start = Math.floor(this.#first / this.size) * this.size; start <= last; start += this.size)
      result.push([start, this.#buckets.get(start) ?? emptyBucket()]);
    return result;
  }

  #coarsen(): void {
    this.#sizeIndex += 1;
    const size = this.size;
    const old = this.#buckets;
    this.#buckets = new Map();
    for (const [start, bucket] of old) {
      const merged = this.#buckets.get(Math.floor(start / size) * size);
      if (merged === undefined) this.#buckets.set(Math.floor(start / size) * size, bucket);
      else mergeInto(merged, bucket);
    }
  }
}

/** Adds a call's cost to `role`'s series of the bucket (or to its others). */
export function addRoleCost(bucket: Bucket, role: string, nanoUsd: number): void {
  let sum = bucket.roles.get(role);
  if (sum === undefined && bucket.roles.size < MAX_SERIES_PER_BUCKET) {
    sum = new NanoSum();
    bucket.roles.set(role, sum);
  }
  (sum ?? bucket.otherRoles).add(nanoUsd);
}

/** Counts a failed call of `kind` in the bucket. */
export function addError(bucket: Bucket, kind: string): void {
  bucket.failures += 1;
  const count = bucket.errors.get(kind);
  if (count !== undefined) bucket.errors.set(kind, count + 1);
  else if (bucket.errors.size < MAX_SERIES_PER_BUCKET) bucket.errors.set(kind, 1);
  else bucket.otherErrors += 1;
}

function sizeAt(index: number): readonly [number, string] {
  const last = SIZES.length - 1;
  if (index <= last) return SIZES[index] as readonly [number, string];
  const [size] = SIZES[last] as readonly [number, string];
  const years = 2 ** (index - last);
  return [size * years, `${365 * years} days`];
}

function emptyBucket(): Bucket {
  return {
    cost: new NanoSum(),
    calls: 0,
    failures: 0,
    roles: new Map(),
    otherRoles: new NanoSum(),
    errors: new Map(),
    otherErrors: 0,
  };
}

function mergeInto(target: Bucket, source: Bucket): void {
  target.cost.addSum(source.cost);
  target.calls += source.calls;
  target.failures += source.failures;
  for (const [role, sum] of source.roles) {
    const own = target.roles.get(role);
    if (own !== undefined) own.addSum(sum);
    else if (target.roles.size < MAX_SERIES_PER_BUCKET) target.roles.set(role, sum);
    else target.otherRoles.addSum(sum);
  }
  target.otherRoles.addSum(source.otherRoles);
  for (const [kind, count] of source.errors) {
    const own = target.errors.get(kind);
    if (own !== undefined) target.errors.set(kind, own + count);
    else if (target.errors.size < MAX_SERIES_PER_BUCKET) target.errors.set(kind, count);
    else target.otherErrors += count;
  }
  target.otherErrors += source.otherErrors;
}
