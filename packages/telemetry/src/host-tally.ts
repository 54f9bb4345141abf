import type { CheckedJournalLine } from './check-journal-line.js';
import { breakdownOf, type Tally, type TallyFigures, tallyOf } from './tally.js';
import { usageTokens } from './usage-tokens.js';

/** One host's figures in a report over many journals, and its processes' (by pid). */
export interface HostFigures extends TallyFigures {
  /** By process id (`(unknown)` for lines without one); past 1,000, the rest under `(others)`. */
  readonly processes: Readonly<Record<string, TallyFigures>>;
}

/** The host lines without one are counted under. */
const UNNAMED_HOST = '(unnamed)';

/** Totals by the host and the process that made each call (its line's `host` and `pid`), at most 1,000 hosts named. */
export class HostTally {
  readonly #hosts = new Map<string, Tally>();
  readonly #processes = new Map<string, Map<string, Tally>>();

  add(checked: CheckedJournalLine): void {
    const record = checked.line;
    const host = typeof record.host === 'string' ? record.host : UNNAMED_HOST;
    const tokens = usageTokens(record.usage);
    const tally = tallyOf(this.#hosts, host);
    tally.add(record, tokens, checked.settlement);
    // The host's own name, or (others) past the cap: its processes are kept with it.
    const name = this.#hosts.get(host) === tally ? host : '(others)';
    let processes = this.#processes.get(name);
    if (processes === undefined) {
      processes = new Map();
      this.#processes.set(name, processes);
    }
    const pid = typeof record.pid === 'number' ? String(record.pid) : '(unknown)';
    tallyOf(processes, pid).add(record, tokens, checked.settlement);
  }

  /** Each host's figures, the dearest first, with its processes'. */
  figures(): Readonly<Record<string, HostFigures>> {
    const hosts = breakdownOf(this.#hosts);
    return Object.freeze(
      Object.fromEntries(
        Object.entries(hosts).map(([host, figures]) => [
          host,
          Object.freeze({ ...figures, processes: breakdownOf(this.#processes.get(host) ?? new Map()) }),
        ]),
      ),
    );
  }
}
