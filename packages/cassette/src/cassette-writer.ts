import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { CASSETTE_VERSION, type CassetteEntry, type RecordedEndpoint } from './cassette-entry.js';
import { appendLine, openAppending, openRecording, processId } from './cassette-file.js';
import { CassetteFormatError } from './cassette-format-error.js';
import { checkLine, entryLine, headerLine } from './cassette-line.js';
import { scrubJson } from './json-secrets.js';
import type { SecretRules } from './secret-scan.js';

/** What a writer is given for a call: everything but where the line sits. */
export type EntryBody = Omit<CassetteEntry, 'call' | 'run' | 'process' | 'seq'>;

/**
 * Writes a cassette: one whole line per call, appended (`O_APPEND`) as each call
 * ends, by any number of recorders in any number of processes. Every line is
 * checked for secrets first and refused (nothing written) when it holds one.
 */
export class CassetteWriter {
  readonly path: string;
  readonly rules: SecretRules;
  readonly #open: () => ReturnType<typeof openRecording>;
  /** Calls written by this writer, counted locally (their place in the file is known only when it is read). */
  #written = 0;

  private constructor(path: string, rules: SecretRules, open: () => ReturnType<typeof openRecording>) {
    this.path = path;
    this.rules = rules;
    this.#open = open;
  }

  /**
   * A recorder of run `run`: its header (checked now) is written by the first
   * call of the run, which replaces a cassette of another run (a run that makes
   * no call leaves the file as it was); later calls, of any process of the run, append.
   */
  static create(
    path: string,
    rules: SecretRules,
    endpoint: RecordedEndpoint | null,
    run: string,
  ): CassetteWriter {
    const header = headerLine({
      cassette: CASSETTE_VERSION,
      run,
      endpoint: endpoint === null ? null : scrubJson(endpoint, rules),
    });
    checkLine(path, 'the header', header, rules);
    if (!statSync(dirname(resolve(path)), { throwIfNoEntry: false })?.isDirectory()) {
      throw new CassetteFormatError(path, null, 'cannot record here: its folder does not exist');
    }
    return new CassetteWriter(path, rules, () => openRecording(path, run, () => header));
  }

  /** A writer that appends to an existing cassette, in its run (pass-through calls of a replay). */
  static append(path: string, rules: SecretRules): CassetteWriter {
    return new CassetteWriter(path, rules, () => openAppending(path));
  }

  /**
   * Checks and appends one call; returns it as written, numbered locally.
   * @throws {CassetteSecretError} when the line would hold a secret (nothing is written).
   * @throws {CassetteFormatError} when the file cannot be recorded to.
   */
  write(entry: EntryBody, calls: number): CassetteEntry {
    const file = this.#open();
    let written: CassetteEntry | null = null;
    appendLine(file, (seq) => {
      const numbered: CassetteEntry = {
        call: calls + this.#written + 1,
        ...(file.run === null ? {} : { run: file.run }),
        process: processId(),
        seq,
        ...entry,
      };
      const line = entryLine(numbered);
      checkLine(this.path, `call ${seq} of process ${numbered.process}`, line, this.rules);
      written = numbered;
      return line;
    });
    this.#written += 1;
    return written as unknown as CassetteEntry;
  }
}
