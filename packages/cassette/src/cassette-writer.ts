import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { CASSETTE_VERSION, type CassetteEntry, type RecordedEndpoint } from './cassette-entry.js';
import { appendLine, openAppending, openRecording, processId } from './cassette-file.js';
import { CassetteFormatError } from './cassette-format-error.js';
import { checkLine, entryLine, headerLine } from './cassette-line.js';
import type { CleanEntry } from './clean-entry.js';
import { scrubJson } from './json-secrets.js';
import { findSecrets, type SecretRules } from './secret-scan.js';

/**
 * Writes a cassette: one whole line per call, appended (`O_APPEND`) as each call
 * ends, by any number of recorders in any number of processes. It appends only
 * entries `cleanEntry` scrubbed and found clean (the header it checks itself).
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
   * no call leaves the file as it was) and names it (`replaced`); later calls, of
   * any process of the run, append. A run whose file another run took over fails
   * every later call, and never takes it back.
   */
  static create(
    path: string,
    rules: SecretRules,
    endpoint: RecordedEndpoint | null,
    run: string,
  ): CassetteWriter {
    const recorded = endpoint === null ? null : scrubJson(endpoint, rules);
    checkLine(path, 'the header', headerLine({ cassette: CASSETTE_VERSION, run, endpoint: recorded }), rules);
    if (!statSync(dirname(resolve(path)), { throwIfNoEntry: false })?.isDirectory()) {
      throw new CassetteFormatError(path, null, 'cannot record here: its folder does not exist');
    }
    // The runs this one replaces come from the file it replaces: a name holding a secret is left out.
    const header = (replaced: readonly string[]) => {
      const kept = replaced.filter((name) => findSecrets(name, rules).length === 0);
      return headerLine({
        cassette: CASSETTE_VERSION,
        run,
        ...(kept.length === 0 ? {} : { replaced: kept }),
        endpoint: recorded,
      });
    };
    return new CassetteWriter(path, rules, () => openRecording(path, run, header));
  }

  /** A writer that appends to an existing cassette, in its run (pass-through calls of a replay). */
  static append(path: string, rules: SecretRules): CassetteWriter {
    return new CassetteWriter(path, rules, () => openAppending(path));
  }

  /**
   * Appends one call, scrubbed and checked by `cleanEntry`; returns it as written, numbered locally.
   * @throws {CassetteFormatError} when the file cannot be recorded to.
   */
  write(entry: CleanEntry, calls: number): CassetteEntry {
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
      written = numbered;
      return entryLine(numbered);
    });
    this.#written += 1;
    return written as unknown as CassetteEntry;
  }
}
