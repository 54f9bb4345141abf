import type { CassetteEntry, CassetteHeader } from './cassette-entry.js';
import { CassetteSecretError } from './cassette-secret-error.js';
import { expandCompactReply, jsonMember, jsonObject, lineReplyJson } from './compact-events.js';
import { expandEntry, findJsonSecrets, type JsonFinding } from './json-secrets.js';
import { CASSETTE_LIMITS } from './read-cassette.js';
import type { SecretRules } from './secret-scan.js';

/** The text of a cassette's header line (no newline). */
export function headerLine(header: CassetteHeader): string {
  return JSON.stringify({
    cassette: header.cassette,
    ...(header.run === undefined ? {} : { run: header.run }),
    ...(header.replaced === undefined ? {} : { replaced: header.replaced }),
    endpoint: header.endpoint,
  });
}

/**
 * The text of one entry's line (no newline), its fields always in the same order: as
 * `JSON.stringify` writes the entry, a long stream's events compactly when its recorder
 * could (see `LineEvents`, written by `lineReplyJson` from the parts they are kept in).
 */
export function entryLine(entry: CassetteEntry): string {
  return jsonObject([
    jsonMember('run', entry.run),
    jsonMember('process', entry.process),
    jsonMember('seq', entry.seq),
    jsonMember('test', entry.test),
    jsonMember('match', entry.match),
    jsonMember('key', entry.key),
    jsonMember('streamed', entry.streamed),
    jsonMember('request', entry.request),
    jsonMember('timeoutSeconds', entry.timeoutSeconds),
    jsonMember('attempts', entry.attempts),
    `"reply":${lineReplyJson(entry.reply)}`,
    jsonMember('ms', entry.ms),
    jsonMember('pricing', entry.pricing),
  ]);
}

/**
 * The secrets a cassette line holds, as a reader could decode them: every string
 * unescaped, a stream's events parsed and their deltas joined per choice and
 * field, base64, percent-encoded, HTML entities and hex (see `findJsonSecrets`).
 * A line that is not JSON is scanned as text.
 */
export function lineSecrets(text: string, rules: SecretRules): JsonFinding[] {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    value = [text];
  }
  try {
    // Compact events scanned as the reader expands them; a line that does not expand, as it is.
    value = expandCompactReply(value, CASSETTE_LIMITS, () => {
      throw new RangeError('not expandable');
    });
  } catch {
    // scanned as written
  }
  return findJsonSecrets(expandEntry(value), rules);
}

/** What a finding says: `the API key (base64) at $.reply.body...`; never the secret. */
export function describeFinding(finding: JsonFinding): string {
  return `${finding.what} (${finding.form}) at ${finding.path}`;
}

/**
 * Refuses (throws {@link CassetteSecretError}) a line that would store a secret
 * of `rules` or a credential shape in any form a reader could decode.
 */
export function checkLine(path: string, where: string, text: string, rules: SecretRules): void {
  const [finding] = lineSecrets(text, rules);
  if (finding !== undefined) {
    throw new CassetteSecretError(
      path,
      `refusing to write ${where} to the cassette ${path}: it would store ${describeFinding(finding)}; nothing was written, and the call fails`,
    );
  }
}
