import type { MergedLine, NamedJournal } from './journal-merge.js';
import { RepeatWindow } from './repeat-window.js';

/** A line of one of several journals: its file and its number there. */
export interface JournalPlace {
  readonly file: string;
  readonly line: number;
}

/** A line read twice (`of`: where it was read first). */
export interface RepeatedLine extends JournalPlace {
  readonly of: JournalPlace;
}

/** Lines of a kind: how many, and the first ones. */
export interface RepeatedLines {
  readonly count: number;
  readonly lines: readonly RepeatedLine[];
}

/**
 * The lines read twice among merged journals ({@link RepeatWindow}): copies (`repeats`) and
 * calls told two ways (`conflicts`), counted, the first ones named by file and line.
 */
export class RepeatFindings {
  readonly #journals: readonly NamedJournal[];
  readonly #maxListed: number;
  readonly #window = new RepeatWindow();
  readonly #repeats: RepeatedLine[] = [];
  readonly #conflicts: RepeatedLine[] = [];
  #repeatCount = 0;
  #conflictCount = 0;

  constructor(journals: readonly NamedJournal[], maxListed: number) {
    this.#journals = journals;
    this.#maxListed = maxListed;
  }

  /** The place of a line of journal `journal`. */
  place(journal: number, line: number): JournalPlace {
    return { file: (this.#journals[journal] as NamedJournal).name, line };
  }

  /** Checks one merged line: true when its call is new (to be counted), false when read before (named). */
  isNew(merged: MergedLine): boolean {
    const verdict = this.#window.check(merged);
    if (verdict.kind === 'new') return true;
    const repeated = {
      ...this.place(merged.journal, merged.line),
      of: this.place(verdict.of.journal, verdict.of.line),
    };
    if (verdict.kind === 'copy') {
      this.#repeatCount += 1;
      if (this.#repeats.length < this.#maxListed) this.#repeats.push(repeated);
    } else {
      this.#conflictCount += 1;
      if (this.#conflicts.length < this.#maxListed) this.#conflicts.push(repeated);
    }
    return false;
  }

  get repeats(): RepeatedLines {
    return Object.freeze({ count: this.#repeatCount, lines: [...this.#repeats] });
  }

  get conflicts(): RepeatedLines {
    return Object.freeze({ count: this.#conflictCount, lines: [...this.#conflicts] });
  }

  /** Lines out of their journal's order by more than the window (see {@link RepeatWindow}). */
  get late(): number {
    return this.#window.late;
  }
}
