import { readFileSync } from 'node:fs';
import { requestHash } from './canonical-json.js';
import { CassetteFormatError } from './cassette-format-error.js';
import { CREDENTIAL_SHAPES } from './cassette-line.js';
import { parseCassette } from './read-cassette.js';
import { keyFormIn } from './scrub-secrets.js';

/** One thing wrong with a cassette file. */
export interface CassetteProblem {
  /** The 1-based line, or null for the file. */
  readonly line: number | null;
  /** What is wrong; never the secret itself. */
  readonly message: string;
}

/** Options of {@link checkCassette}. */
export interface CheckCassetteOptions {
  /** Keys that must not appear in any form (e.g. the values of the key variables in the environment). */
  readonly keys?: readonly string[];
}

/**
 * Checks a cassette for a pre-commit hook: every line is readable as a cassette
 * line, every call's match hash is its request's, and no line holds one of
 * `keys` (as is or encoded) or a credential-shaped value.
 *
 * @throws {CassetteFormatError} when the file cannot be read as a cassette at all.
 */
export function checkCassette(path: string, options: CheckCassetteOptions = {}): CassetteProblem[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new CassetteFormatError(path, null, `cannot read it (${(error as NodeJS.ErrnoException).code})`);
  }
  const problems: CassetteProblem[] = [];
  const keys = (options.keys ?? []).filter((key) => key.trim().length >= 8);
  text.split('\n').forEach((line, index) => {
    for (const key of keys) {
      const form = keyFormIn(line, key);
      if (form !== null)
        problems.push({ line: index + 1, message: `holds a key from the environment (${form})` });
    }
    for (const [shape, name] of CREDENTIAL_SHAPES) {
      if (shape.test(line)) problems.push({ line: index + 1, message: `holds ${name}` });
    }
  });
  const cassette = parseCassette(path, text);
  cassette.entries.forEach((entry) => {
    if (requestHash(entry.request) !== entry.match) {
      problems.push({
        line: null,
        message: `call ${entry.call}: "match" is not the hash of its request (edited by hand? it is matched as the request now reads)`,
      });
    }
  });
  return problems;
}
