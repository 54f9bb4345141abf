import { boundedString } from './bounded-string.js';
import { describeError } from './describe-error.js';
import { withoutCredentials } from './endpoint-label.js';
import type { JournalAnnotation } from './journal-annotation.js';
import { JournalClamps } from './journal-clamps.js';
import { JOURNAL_LIMITS } from './journal-limits.js';
import { recordCore, recordOverrides } from './journal-record-bounds.js';
import { usageCounts } from './journal-usage.js';
import { processHost } from './process-host.js';
import type { EndpointInfo, TelemetryRecord } from './telemetry-record.js';

/**
 * The journal format's version, the `v` of every line written: 2 adds `seq`, `callId`, `host`
 * and `pid`; lines of version 1 (without them) are still read.
 */
export const JOURNAL_VERSION = 2;

/**
 * One line of a journal: the call record (no key, no message content) with the
 * endpoint it went to, its outcome and degradation flag.
 */
export interface JournalLine extends TelemetryRecord {
  /** The journal format's version. */
  readonly v: number;
  /**
   * The line's place among the lines its writer (one `CallJournal` in process `pid` on `host`)
   * wrote: 1, 2, 3… in the order they were written, with no number skipped. Absent from lines
   * of version 1. With `callId`, what lets `report --verify` find a missing, repeated or
   * reordered line. `host` and `pid` are the record's, or the writer's when the record has none.
   */
  readonly seq?: number;
  readonly role: string | null;
  /**
   * The tenant the call was made for (`CallRecord.tenant`), or null: always written (null when the
   * record has none); a line written before the field existed is read with it null. Never a key.
   */
  readonly tenant: string | null;
  /** Where the call went: provider, base address, thinking; never a key. */
  readonly endpoint: EndpointInfo | null;
  /** `'ok'` when a reply arrived, else the error kind. */
  readonly outcome: string;
  /** Whether the failure was a degradation (not a verdict). */
  readonly degradation: boolean;
  /**
   * The figures and names written other than the record had them, so that the reader
   * takes the line: by path (`usage.prompt_tokens`), the original value as text (`-5`,
   * `1e+308`, `"12"`). Counts below 0 are written 0, above the bound the bound, NaN and
   * what is not a number null; names are cut to 256 characters.
   */
  readonly clamped?: Readonly<Record<string, string>>;
  /** Why the usage was not written whole (it could not be written as JSON, or made the line too long): `usage` then holds only its token counts. */
  readonly usageError?: string;
  /** Why the record was not written whole: the line then holds only the journal format's own fields. */
  readonly recordError?: string;
  /** What the code opted in to journal with the call (see `CallJournalOptions.annotate`). */
  readonly extra?: Readonly<Record<string, unknown>>;
  /** Why the call's annotation was left out (it threw, or was too large). */
  readonly extraError?: string;
}

/** The journal line of a record, as {@link journalLineText} writes it. */
export function journalLineOf(
  record: TelemetryRecord,
  endpoint: EndpointInfo | null,
  extra: Record<string, unknown> | undefined,
  seq?: number,
): JournalLine {
  const annotation = extra === undefined ? undefined : { json: JSON.stringify(extra) };
  return JSON.parse(journalLineText(record, JSON.stringify(endpoint), annotation, seq)) as JournalLine;
}

/**
 * The endpoint as journals keep it: only provider, base address (credentials removed) and
 * thinking, cut to the lengths the reader takes (256 and 2,048 characters).
 */
export function journalEndpoint(endpoint: EndpointInfo | null | undefined): EndpointInfo | null {
  if (endpoint === null || endpoint === undefined) return null;
  if (typeof endpoint.provider !== 'string' || typeof endpoint.baseUrl !== 'string')
    throw new TypeError('endpoint must have a string provider and baseUrl');
  return Object.freeze({
    provider:
      endpoint.provider === '' ? 'unknown' : boundedString(endpoint.provider, JOURNAL_LIMITS.maxNameLength),
    baseUrl: boundedString(withoutCredentials(endpoint.baseUrl), JOURNAL_LIMITS.maxUrlLength),
    thinking: endpoint.thinking === true,
  });
}

/** What a line adds after the record's own fields. */
interface LineTail {
  /** The line's number among its writer's lines, or undefined (none written). */
  readonly seq: number | undefined;
  readonly clamps: JournalClamps;
  usageError?: string;
  recordError?: string;
  annotation: JournalAnnotation | undefined;
}

/**
 * The text of a record's journal line (without the newline), built without copying the
 * record when it is in range: `endpointJson` is the endpoint's JSON, made once per
 * journal. The line is always one the reader takes, whatever the record holds: figures
 * out of range are clamped and listed in `clamped`; a usage JSON cannot hold (too deep,
 * a cycle, a `BigInt`, a throwing getter) or too large for a line keeps only its token
 * counts, with `usageError` saying why; a line still over the reader's cap loses its
 * annotation (`extraError`); a record that still cannot be written is written as the
 * format's own fields alone, with `recordError`. Never throws.
 */
export function journalLineText(
  record: TelemetryRecord,
  endpointJson: string,
  annotation: JournalAnnotation | undefined,
  seq?: number,
): string {
  try {
    return wholeLine(record as unknown as Record<string, unknown>, endpointJson, annotation, seq);
  } catch (error) {
    return coreLine(
      record as unknown as Record<string, unknown>,
      endpointJson,
      `the record could not be written as JSON (${describeError(error)})`,
      seq,
    );
  }
}

function wholeLine(
  record: Record<string, unknown>,
  endpointJson: string,
  annotation: JournalAnnotation | undefined,
  seq: number | undefined,
): string {
  const tail: LineTail = { seq, clamps: new JournalClamps(), annotation };
  const overrides = recordOverrides(record, tail.clamps);
  let fields: Record<string, unknown> = overrides === null ? record : { ...record, ...overrides };
  let body: string;
  try {
    body = JSON.stringify(fields);
  } catch (error) {
    // Only a usage can hold what JSON cannot (past the adapter's copy depth); anything else is the last resort's.
    if (!unwritable(fields.usage)) throw error;
    fields = reducedUsage(fields, record, tail, `it could not be written as JSON (${describeError(error)})`);
    body = JSON.stringify(fields);
  }
  let text = assemble(body, fields, endpointJson, tail);
  if (!tooLong(text)) return text;
  if (tail.annotation?.json !== undefined) {
    tail.annotation = { error: 'the annotation was left out: the line would be over the reader’s line cap' };
    text = assemble(body, fields, endpointJson, tail);
    if (!tooLong(text)) return text;
  }
  if (tail.usageError === undefined) {
    fields = reducedUsage(fields, record, tail, 'the line would be over the reader’s line cap');
    text = assemble(JSON.stringify(fields), fields, endpointJson, tail);
    if (!tooLong(text)) return text;
  }
  return coreLine(record, endpointJson, 'the line would be over the reader’s line cap', seq);
}

// The last resort: the format's own fields, each bounded, the usage's counts alone. Plain data: it cannot throw.
function coreLine(
  record: Record<string, unknown>,
  endpointJson: string,
  why: string,
  seq: number | undefined,
): string {
  const core = recordCore(record);
  const tail: LineTail = { seq, clamps: new JournalClamps(), annotation: undefined, recordError: why };
  const counted = { ...core, usage: usageCounts(core.usage, tail.clamps) };
  const fields = { ...counted, ...recordOverrides(counted, tail.clamps) };
  return assemble(JSON.stringify(fields), fields, endpointJson, tail);
}

function reducedUsage(
  fields: Record<string, unknown>,
  record: Record<string, unknown>,
  tail: LineTail,
  why: string,
): Record<string, unknown> {
  tail.usageError = `the usage was not written whole: ${why}; only its token counts are kept`;
  return { ...fields, usage: usageCounts(record.usage, tail.clamps) };
}

function assemble(
  body: string,
  fields: Record<string, unknown>,
  endpointJson: string,
  tail: LineTail,
): string {
  // The record's own fields, then the journal's (a later duplicate key wins when read).
  const own = body.length > 2 ? `${body.slice(1, -1)},` : '';
  const role = fields.role === undefined ? '"role":null,' : '';
  const tenant = fields.tenant === undefined ? '"tenant":null,' : '';
  const error = fields.error as
    | { readonly kind?: unknown; readonly degradation?: unknown }
    | null
    | undefined;
  const outcome = JSON.stringify(error ? error.kind : 'ok');
  const degradation = error?.degradation === true;
  const clamped = tail.clamps.fields === null ? '' : `,"clamped":${JSON.stringify(tail.clamps.fields)}`;
  const usageError = tail.usageError === undefined ? '' : `,"usageError":${JSON.stringify(tail.usageError)}`;
  const recordError =
    tail.recordError === undefined ? '' : `,"recordError":${JSON.stringify(tail.recordError)}`;
  const annotation = tail.annotation;
  const extra =
    annotation?.json !== undefined
      ? `,"extra":${annotation.json}`
      : annotation?.error !== undefined
        ? `,"extraError":${JSON.stringify(annotation.error)}`
        : '';
  const seq = tail.seq === undefined ? '' : `"seq":${tail.seq},`;
  return `{"v":${JOURNAL_VERSION},${seq}${own}${role}${tenant}${writer(fields)}"endpoint":${endpointJson},"outcome":${outcome},"degradation":${degradation}${clamped}${usageError}${recordError}${extra}}`;
}

// A record made by hand or by an older adapter has no host and pid: the line names the writer's.
function writer(fields: Record<string, unknown>): string {
  const host = typeof fields.host === 'string' ? '' : `"host":${JSON.stringify(processHost())},`;
  const pid = typeof fields.pid === 'number' ? '' : `"pid":${process.pid},`;
  return `${host}${pid}`;
}

function unwritable(usage: unknown): boolean {
  try {
    JSON.stringify(usage);
    return false;
  } catch {
    return true;
  }
}

function tooLong(text: string): boolean {
  // A UTF-16 code unit is at most 3 bytes of UTF-8: most lines are measured by their length alone.
  return (
    text.length * 3 > JOURNAL_LIMITS.maxLineBytes && Buffer.byteLength(text) > JOURNAL_LIMITS.maxLineBytes
  );
}
