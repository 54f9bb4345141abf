import { withoutCredentials } from './endpoint-label.js';
import type { JournalAnnotation } from './journal-annotation.js';
import type { EndpointInfo, TelemetryRecord } from './telemetry-record.js';

/** The journal format's version, the `v` of every line. */
export const JOURNAL_VERSION = 1;

/**
 * One line of a journal: the call record (no key, no message content) with the
 * endpoint it went to, its outcome and degradation flag.
 */
export interface JournalLine extends TelemetryRecord {
  /** The journal format's version. */
  readonly v: number;
  readonly role: string | null;
  /** Where the call went: provider, base address, thinking; never a key. */
  readonly endpoint: EndpointInfo | null;
  /** `'ok'` when a reply arrived, else the error kind. */
  readonly outcome: string;
  /** Whether the failure was a degradation (not a verdict). */
  readonly degradation: boolean;
  /** What the code opted in to journal with the call (see `CallJournalOptions.annotate`). */
  readonly extra?: Readonly<Record<string, unknown>>;
  /** Why the call's annotation was left out (it threw, or was too large). */
  readonly extraError?: string;
}

/** The journal line of a record. */
export function journalLineOf(
  record: TelemetryRecord,
  endpoint: EndpointInfo | null,
  extra: Record<string, unknown> | undefined,
): JournalLine {
  const line: JournalLine = {
    v: JOURNAL_VERSION,
    ...record,
    role: record.role ?? null,
    endpoint,
    outcome: record.error ? record.error.kind : 'ok',
    degradation: record.error?.degradation === true,
  };
  return extra === undefined ? line : { ...line, extra };
}

/** The endpoint as journals keep it: only provider, base address (credentials removed) and thinking. */
export function journalEndpoint(endpoint: EndpointInfo | null | undefined): EndpointInfo | null {
  if (endpoint === null || endpoint === undefined) return null;
  if (typeof endpoint.provider !== 'string' || typeof endpoint.baseUrl !== 'string')
    throw new TypeError('endpoint must have a string provider and baseUrl');
  return Object.freeze({
    provider: endpoint.provider,
    baseUrl: withoutCredentials(endpoint.baseUrl),
    thinking: endpoint.thinking === true,
  });
}

/**
 * The text of {@link journalLineOf} (without the newline), built without copying
 * the record: `endpointJson` is the endpoint's JSON, made once per journal.
 */
export function journalLineText(
  record: TelemetryRecord,
  endpointJson: string,
  annotation: JournalAnnotation | undefined,
): string {
  const body = JSON.stringify(record);
  // The record's own fields, then the journal's (a later duplicate key wins when read).
  const fields = body.length > 2 ? `${body.slice(1, -1)},` : '';
  const role = record.role === undefined ? '"role":null,' : '';
  const outcome = JSON.stringify(record.error ? record.error.kind : 'ok');
  const degradation = record.error?.degradation === true;
  const extra =
    annotation?.json !== undefined
      ? `,"extra":${annotation.json}`
      : annotation?.error !== undefined
        ? `,"extraError":${JSON.stringify(annotation.error)}`
        : '';
  return `{"v":${JOURNAL_VERSION},${fields}${role}"endpoint":${endpointJson},"outcome":${outcome},"degradation":${degradation}${extra}}`;
}
