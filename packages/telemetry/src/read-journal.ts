import { createReadStream } from 'node:fs';
import type { JournalLine } from './journal-line.js';

/** A journal line that was skipped. */
export interface JournalIssue {
  /** 1-based line number in the file. */
  readonly line: number;
  /** `torn`: the last line, cut off mid-write (a crash); `malformed`: any other unreadable line. */
  readonly kind: 'torn' | 'malformed';
  /** Says which line and why, e.g. `line 7: not JSON`. */
  readonly message: string;
}

/** Options of {@link readJournal}. */
export interface ReadJournalOptions {
  /** Told about each skipped line; default: a process warning per line. */
  readonly onIssue?: (issue: JournalIssue) => void;
}

/**
 * Reads a journal line by line, streaming (memory bounded by the longest line).
 * Blank lines are ignored; a line that is not a JSON record is skipped and
 * reported by number, the torn last line of a crash too.
 */
export async function* readJournal(
  path: string,
  options: ReadJournalOptions = {},
): AsyncGenerator<JournalLine> {
  const onIssue = options.onIssue ?? warnJournalIssue;
  let rest = '';
  let lineNumber = 0;
  for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: 256 * 1024 })) {
    const text = rest + (chunk as string);
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      lineNumber += 1;
      const parsed = parseJournalLine(text.slice(start, end), lineNumber);
      start = end + 1;
      if (parsed === null) continue;
      if ('message' in parsed) onIssue(parsed);
      else yield parsed.record;
    }
    rest = text.slice(start);
  }
  if (rest.trim() === '') return;
  lineNumber += 1;
  const parsed = parseJournalLine(rest, lineNumber);
  if (parsed === null) return;
  if ('record' in parsed) yield parsed.record;
  else
    onIssue({
      line: lineNumber,
      kind: 'torn',
      message: `line ${lineNumber}: the last line is incomplete (cut off mid-write), skipped`,
    });
}

/** The default of `onIssue`: a process warning (type `JournalWarning`) naming the line. */
export function warnJournalIssue(issue: JournalIssue): void {
  process.emitWarning(issue.message, 'JournalWarning');
}

/**
 * Parses one line of a journal: null for a blank line, the record, or the issue
 * naming the line by number.
 */
export function parseJournalLine(
  text: string,
  lineNumber: number,
): { readonly record: JournalLine } | JournalIssue | null {
  if (text.trim() === '') return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { line: lineNumber, kind: 'malformed', message: `line ${lineNumber}: not JSON, skipped` };
  }
  if (!isJournalRecord(value)) {
    return {
      line: lineNumber,
      kind: 'malformed',
      message: `line ${lineNumber}: not a call record (expected an object with a string "model" and an ISO time "at"), skipped`,
    };
  }
  return { record: value };
}

function isJournalRecord(value: unknown): value is JournalLine {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  return (
    typeof record.model === 'string' && typeof record.at === 'string' && !Number.isNaN(Date.parse(record.at))
  );
}
