import { type CheckedJournalLine, checkJournalLine } from './check-journal-line.js';
import { JOURNAL_LIMITS } from './journal-limits.js';
import type { JournalLine } from './journal-line.js';
import { type JournalSource, LineSplitter, openSource, type ScannedLine, scanLines } from './scan-lines.js';

/** A journal line that was skipped. */
export interface JournalIssue {
  /** The file as messages name it (`-` is `<stdin>`). */
  readonly file: string;
  /** 1-based line number in the file. */
  readonly line: number;
  /**
   * `torn`: the last line, cut off mid-write (a crash); `too-long`: over the
   * line cap; `malformed`: not JSON; `invalid`: JSON that is not a call record
   * this reader trusts (a field of the wrong type or out of bounds).
   */
  readonly kind: 'torn' | 'too-long' | 'malformed' | 'invalid';
  /** `file:line: why, skipped`, e.g. `run.jsonl:7: costUsd: expected a finite number >= 0, got -1, skipped`. */
  readonly message: string;
}

/** Options of {@link readJournal}. */
export interface ReadJournalOptions {
  /** Told about each skipped line; default: the first 20 as process warnings, then how many more. */
  readonly onIssue?: (issue: JournalIssue) => void;
  /** How messages name the source; default: its path (`<stdin>` for `-`, `journal` for a stream). */
  readonly name?: string;
}

/** Options of {@link scanJournal}. */
export interface ScanJournalOptions extends ReadJournalOptions {
  /** Told each line that passed every check, with its number. */
  /** Told each line that passed every check, with its number. */
  readonly onLine: (checked: CheckedJournalLine, lineNumber: number) => void;
}

/** Most skipped lines the default `onIssue` warns about, one by one; the rest are counted. */
export const MAX_ISSUE_WARNINGS = 20;

/**
 * Reads a journal (a path, `-` for stdin, or a stream of bytes) streaming, in
 * flat memory whatever its size or content, and tells `onLine` each line that
 * passes {@link checkJournalLine}. Blank lines are ignored; every other line
 * that cannot be trusted is skipped, told to `onIssue` by number and why, and
 * never counted. Never throws for what the journal holds (only when it cannot be opened).
 */
export async function scanJournal(source: JournalSource, options: ScanJournalOptions): Promise<void> {
  const warner = options.onIssue === undefined ? cappedIssueWarner() : null;
  const handle = lineHandler(
    options.name ?? sourceName(source),
    options.onIssue ?? warner?.warn ?? warnJournalIssue,
    options.onLine,
  );
  await scanLines(source, JOURNAL_LIMITS.maxLineBytes, handle);
  warner?.end();
}

/** What every reader does with one line: skip blank ones, name the ones it cannot trust, hand on the rest (with its text). */
export function lineHandler(
  file: string,
  onIssue: (issue: JournalIssue) => void,
  onLine: (checked: CheckedJournalLine, lineNumber: number, text: string) => void,
): (line: ScannedLine) => void {
  return ({ number, text, bytes, last }) => {
    if (text === null) {
      onIssue(
        issue(
          file,
          number,
          'too-long',
          `${bytes} bytes, over the ${JOURNAL_LIMITS.maxLineBytes}-byte line cap`,
        ),
      );
      return;
    }
    if (text.trim() === '') return;
    const parsed = parseJournalLine(text, number, file);
    if ('message' in parsed)
      onIssue(
        last && parsed.kind === 'malformed'
          ? issue(file, number, 'torn', 'the last line is incomplete (cut off mid-write)')
          : parsed,
      );
    else onLine(parsed, number, text);
  };
}

/**
 * The lines of a journal that pass every check, streaming (see {@link scanJournal}).
 */
export async function* readJournal(
  source: JournalSource,
  options: ReadJournalOptions = {},
): AsyncGenerator<JournalLine> {
  const warner = options.onIssue === undefined ? cappedIssueWarner() : null;
  let ready: JournalLine[] = [];
  const splitter = new LineSplitter(
    JOURNAL_LIMITS.maxLineBytes,
    lineHandler(
      options.name ?? sourceName(source),
      options.onIssue ?? warner?.warn ?? warnJournalIssue,
      (checked) => {
        ready.push(checked.line);
      },
    ),
  );
  // One read's lines at a time: breaking out of the loop ends the read and closes the file.
  for await (const data of openSource(source)) {
    splitter.push(data);
    const lines = ready;
    ready = [];
    yield* lines;
  }
  splitter.end();
  yield* ready;
  warner?.end();
}

/** The default of `onIssue` for one line: a process warning (type `JournalWarning`) naming it. */
export function warnJournalIssue(issue: JournalIssue): void {
  process.emitWarning(issue.message, 'JournalWarning');
}

/** The default `onIssue`: warns about the first 20 skipped lines, then (at `end`) says how many more. */
export function cappedIssueWarner(): { warn(issue: JournalIssue): void; end(): void } {
  let count = 0;
  return {
    warn(issue: JournalIssue) {
      count += 1;
      if (count <= MAX_ISSUE_WARNINGS) warnJournalIssue(issue);
    },
    end() {
      if (count > MAX_ISSUE_WARNINGS)
        process.emitWarning(`… and ${count - MAX_ISSUE_WARNINGS} more lines skipped`, 'JournalWarning');
    },
  };
}

/**
 * Parses and checks one line of a journal: the checked line, or the issue
 * naming it by file and number (`file` defaults to `journal`).
 */
export function parseJournalLine(
  text: string,
  lineNumber: number,
  file = 'journal',
): CheckedJournalLine | JournalIssue {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return issue(file, lineNumber, 'malformed', 'not JSON');
  }
  let checked: CheckedJournalLine | string;
  try {
    checked = checkJournalLine(value);
  } catch {
    // The checks never throw; should one ever, the line is still only skipped.
    checked = 'could not be checked';
  }
  return typeof checked === 'string' ? issue(file, lineNumber, 'invalid', checked) : checked;
}

function issue(file: string, line: number, kind: JournalIssue['kind'], why: string): JournalIssue {
  return { file, line, kind, message: `${file}:${line}: ${why}, skipped` };
}

function sourceName(source: JournalSource): string {
  if (typeof source !== 'string') return 'journal';
  return source === '-' ? '<stdin>' : source;
}
