import { appendFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { CASSETTE_VERSION, type CassetteEntry, type RecordedEndpoint } from './cassette-entry.js';
import { CassetteFormatError } from './cassette-format-error.js';
import { checkLine, entryLine, headerLine } from './cassette-line.js';
import { scrubSecrets } from './scrub-secrets.js';

/**
 * Writes a cassette: one line per call, appended as each call ends; every line
 * is checked for the key first and refused (nothing written) when it holds it.
 */
export class CassetteWriter {
  readonly path: string;
  readonly #key: string;
  #next: number;
  /** The header still to write, with the first call (which replaces the file); null once written or appending. */
  #header: string | null;

  private constructor(path: string, key: string, next: number, header: string | null) {
    this.path = path;
    this.#key = key;
    this.#next = next;
    this.#header = header;
  }

  /**
   * A new cassette: its header is checked now and written with the first call,
   * which replaces any existing file (a run that makes no call leaves it as it was).
   */
  static create(path: string, key: string, endpoint: RecordedEndpoint | null): CassetteWriter {
    const header = headerLine({
      cassette: CASSETTE_VERSION,
      endpoint: endpoint === null ? null : scrubSecrets(endpoint, key),
    });
    checkLine(path, 'the header', header, key);
    if (!statSync(dirname(path), { throwIfNoEntry: false })?.isDirectory()) {
      throw new CassetteFormatError(path, null, 'cannot record here: its folder does not exist');
    }
    return new CassetteWriter(path, key, 1, header);
  }

  /** A writer that appends to an existing cassette holding `entries` calls. */
  static append(path: string, key: string, entries: number): CassetteWriter {
    return new CassetteWriter(path, key, entries + 1, null);
  }

  /** The key scrubbed from everything written (never shown). */
  get key(): string {
    return this.#key;
  }

  /** Numbers, checks and appends one call. @throws {CassetteSecretError} when the line would hold the key. */
  write(entry: Omit<CassetteEntry, 'call'>): CassetteEntry {
    const numbered: CassetteEntry = { call: this.#next, ...entry };
    const line = entryLine(numbered);
    checkLine(this.path, `call ${numbered.call}`, line, this.#key);
    if (this.#header !== null) {
      writeFileSync(this.path, `${this.#header}\n`);
      this.#header = null;
    }
    appendFileSync(this.path, `${line}\n`);
    this.#next += 1;
    return JSON.parse(line) as CassetteEntry;
  }
}
