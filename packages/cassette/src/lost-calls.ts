/**
 * What a process of a record run leaves in a cassette another run took over
 * from it: how many calls it had recorded to the file that was replaced (they
 * are not in this one). `cassette check` fails on such a line, and replay
 * refuses the file: two runs recorded to it at once.
 */
export interface LostCalls {
  /** The run that lost the file. */
  readonly run: string | null;
  /** Its process that recorded the calls. */
  readonly process: string;
  /** How many calls that process had recorded to the replaced file (its last `seq`). */
  readonly lost: number;
  /** The run that took the file over. */
  readonly takenBy: string | null;
}

/** The text of a lost-calls line (no newline). */
export function lostLine(lost: LostCalls): string {
  return JSON.stringify({ lost: lost.lost, run: lost.run, process: lost.process, takenBy: lost.takenBy });
}

/** Whether a parsed cassette line is a lost-calls line rather than a call. */
export function isLostLine(value: Record<string, unknown>): boolean {
  return 'lost' in value && !('request' in value);
}

/** What a check says of a lost-calls line (its fields as read, whatever they hold). */
export function lostMessage(value: Record<string, unknown>): string {
  const lost = Number.isSafeInteger(value.lost) ? (value.lost as number) : null;
  return `${lost === null ? 'some' : String(lost)} call(s) that process ${JSON.stringify(value.process ?? null)} of run ${JSON.stringify(value.run ?? null)} recorded to this cassette are not in it: run ${JSON.stringify(value.takenBy ?? null)} replaced the file while that run was still recording (two record runs on one file at once); re-record it with one run`;
}
