/** A line whose recorded cost is not what its usage, time and price re-derive. */
export interface DifferingLine {
  readonly line: number;
  readonly model: string;
  /** The recorded cost, in nano-dollars. */
  readonly recordedNanoUsd: number;
  /** What re-deriving it gives, in nano-dollars. */
  readonly derivedNanoUsd: number;
  /** What differs, in words (`costNanoUsd 292016, re-derived 292017 at primary-flash's …`). */
  readonly why: string;
}

/** A line whose cost cannot be re-derived, and why (not a wrong line). */
export interface UnverifiableLine {
  readonly line: number;
  readonly model: string;
  readonly why: string;
}

/**
 * A line whose facts contradict one another, so it cannot be what the adapter recorded
 * (`a reply settled exact with 0 prompt tokens: …`): a wrong line, as one whose cost differs.
 */
export interface InconsistentLine {
  readonly line: number;
  readonly model: string;
  readonly why: string;
}

/** A budget scope whose settled spend in the journal passes its limit. */
export interface OverspentScope {
  readonly scope: string;
  readonly limitNanoUsd: number;
  readonly spentNanoUsd: number;
  /** The line on which the spend first passed the limit. */
  readonly line: number;
}

/** A line's budget entry whose scope or limit no budget can have: named, not checked. */
export interface InvalidBudget {
  readonly line: number;
  /** The entry's scope, or null when it has no scope name. */
  readonly scope: string | null;
  /** What is wrong with it (`limitUsd 1e+308 is not a limit: …`). */
  readonly why: string;
}

/**
 * What the numbering of a writer's lines (`host`, `pid`, `seq`) and the calls' ids (`callId`)
 * show is wrong with a journal: `missing` — numbers of a writer's sequence no line has (a
 * line dropped); `duplicate` — a line whose call (`callId`) or number an earlier line already
 * has (a line written twice); `out-of-order` — a line whose number comes after a higher one of
 * its writer (lines moved).
 */
export interface SequenceFinding {
  readonly kind: 'missing' | 'duplicate' | 'out-of-order';
  /** The line it was found on: for `missing`, the first line after the gap. */
  readonly line: number;
  /** The writer's host and process id, as its lines name them (`pid` null when they have none). */
  readonly host: string;
  readonly pid: number | null;
  /** The line's number (null when it has none); for `missing`, the first number missing. */
  readonly seq: number | null;
  /** What is wrong, in words (`seq 6 of host "build-3" pid 4242 is in no line (between lines 5 and 6)`). */
  readonly why: string;
}
