import type { CassetteEntry, CassetteHeader } from './cassette-entry.js';
import { CassetteSecretError } from './cassette-secret-error.js';
import { keyFormIn } from './scrub-secrets.js';

/** Credential shapes no cassette line may hold, with what they are called. */
export const CREDENTIAL_SHAPES: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bBearer\s+(?!\[secret removed\])[A-Za-z0-9._~+/=-]{6,}/i, 'a bearer token'],
  [/\bsk-[A-Za-z0-9_-]{8,}/, 'an sk-style key'],
];

/** The text of a cassette's header line (no newline). */
export function headerLine(header: CassetteHeader): string {
  return JSON.stringify({ cassette: header.cassette, endpoint: header.endpoint });
}

/** The text of one entry's line (no newline), its fields always in the same order. */
export function entryLine(entry: CassetteEntry): string {
  return JSON.stringify({
    call: entry.call,
    match: entry.match,
    key: entry.key,
    streamed: entry.streamed,
    request: entry.request,
    timeoutSeconds: entry.timeoutSeconds,
    attempts: entry.attempts,
    reply: entry.reply,
    ms: entry.ms,
    pricing: entry.pricing,
  });
}

/**
 * Refuses (throws {@link CassetteSecretError}) a line that would store the key in
 * any form `keyFormIn` knows, or a credential shape scrubbing should have removed.
 */
export function checkLine(path: string, where: string, text: string, key: string): void {
  const form = keyFormIn(text, key);
  if (form !== null) {
    throw new CassetteSecretError(
      path,
      `refusing to write ${where} to the cassette ${path}: it would store the API key (${form}); nothing was written`,
    );
  }
  for (const [shape, name] of CREDENTIAL_SHAPES) {
    if (shape.test(text)) {
      throw new CassetteSecretError(
        path,
        `refusing to write ${where} to the cassette ${path}: it would store ${name}; nothing was written`,
      );
    }
  }
}
