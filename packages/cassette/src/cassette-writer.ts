import { appendFileSync, writeFileSync } from 'node:fs';
import { CASSETTE_VERSION, type CassetteEntry, type RecordedEndpoint } from './cassette-entry.js';
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

  private constructor(path: string, key: string, next: number) {
    this.path = path;
    this.#key = key;
    this.#next = next;
  }

  /** A new cassette (an existing file is replaced), its header written at once. */
  static create(path: string, key: string, endpoint: RecordedEndpoint | null): CassetteWriter {
    const header = headerLine({
      cassette: CASSETTE_VERSION,
      endpoint: endpoint === null ? null : scrubSecrets(endpoint, key),
    });
    checkLine(path, 'the header', header, key);
    writeFileSync(path, `${header}\n`);
    return new CassetteWriter(path, key, 1);
  }

  /** A writer that appends to an existing cassette holding `entries` calls. */
  static append(path: string, key: string, entries: number): CassetteWriter {
    return new CassetteWriter(path, key, entries + 1);
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
    appendFileSync(this.path, `${line}\n`);
    this.#next += 1;
    return JSON.parse(line) as CassetteEntry;
  }
}
