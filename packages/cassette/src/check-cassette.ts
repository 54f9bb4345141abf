import type { CostModel } from '@switchboard/adapter';
import { requestHash } from './canonical-json.js';
import { describeFinding, lineSecrets } from './cassette-line.js';
import type { CassetteProblem } from './cassette-problem.js';
import { type Cassette, readCassetteForCheck } from './read-cassette.js';
import { repriceProblems } from './reprice-problems.js';
import { secretRules } from './secret-scan.js';

/** One thing wrong with a cassette file. */
export type { CassetteProblem } from './cassette-problem.js';

/** Options of {@link checkCassette}. */
export interface CheckCassetteOptions {
  /**
   * Values that must not appear in any form (e.g. the values of the key variables in the
   * environment); each may be named (`the value of PRIMARY_API_KEY`). Values under 8
   * characters are not secrets (a placeholder such as `replay`) and are ignored.
   */
  readonly keys?: ReadonlyArray<string | { readonly value: string; readonly name: string }>;
  /**
   * The prices in force, as recording takes them (an endpoint, or a cost model whose
   * `priceCall` is a `PriceBook`'s): each call is re-priced from its usage with it and a
   * recorded cost it does not give is named, since replay bills what the line records.
   * Default none: recorded costs are not checked.
   */
  readonly costModel?: CostModel | null;
}

/** How many calls a cassette holds, and who recorded them. */
export interface CassetteSummary {
  /** Calls, all processes together. */
  readonly calls: number;
  /** The record run that wrote it, or null (a cassette of an older version). */
  readonly run: string | null;
  /** Each recording process with its calls, in the order they first appear (one unnamed process for older cassettes). */
  readonly processes: ReadonlyArray<{ readonly process: string | null; readonly calls: number }>;
}

/** What a check found: the problems (none: the file is fit to commit) and what the file holds. */
export interface CassetteExamination {
  readonly problems: readonly CassetteProblem[];
  readonly summary: CassetteSummary;
}

/**
 * Checks a cassette for a pre-commit hook: every line readable as a cassette
 * line; one record run (no line of another, no second header), no line cut
 * short, each process's calls whole and in order; every call's match hash its
 * request's; and no line holding one of `keys` or a credential shape in any form
 * a reader could decode (JSON escapes, a stream's deltas joined, base64 at any
 * offset, percent-encoding, HTML entities, hex). With `costModel`, also every
 * recorded cost the call's usage gives at those prices.
 *
 * @throws {CassetteFormatError} when the file cannot be read as a cassette at all.
 */
export function examineCassette(path: string, options: CheckCassetteOptions = {}): CassetteExamination {
  const rules = secretRules(options.keys ?? []);
  const problems: CassetteProblem[] = [];
  const secrets: CassetteProblem[] = [];
  const cassette = readCassetteForCheck(path, problems, (text, line) => {
    for (const finding of lineSecrets(text, rules))
      secrets.push({ line, message: `holds ${describeFinding(finding)}` });
  });
  if (options.costModel) problems.push(...repriceProblems(cassette.entries, options.costModel));
  for (const entry of cassette.entries) {
    if (requestHash(entry.request) !== entry.match) {
      problems.push({
        line: null,
        message: `call ${entry.call}: "match" is not the hash of its request (edited by hand? it is matched as the request now reads)`,
      });
    }
  }
  const all = [...secrets, ...problems].sort(
    (a, b) => (a.line ?? Number.MAX_SAFE_INTEGER) - (b.line ?? Number.MAX_SAFE_INTEGER),
  );
  return { problems: all, summary: summarizeCassette(cassette) };
}

/** The problems {@link examineCassette} finds: none when the cassette is fit to commit. */
export function checkCassette(path: string, options: CheckCassetteOptions = {}): CassetteProblem[] {
  return [...examineCassette(path, options).problems];
}

/** How many calls a cassette holds, per recording process. */
export function summarizeCassette(cassette: Cassette): CassetteSummary {
  const processes = new Map<string | null, number>();
  for (const entry of cassette.entries) {
    const name = entry.process ?? null;
    processes.set(name, (processes.get(name) ?? 0) + 1);
  }
  return {
    calls: cassette.entries.length,
    run: cassette.header.run ?? null,
    processes: [...processes].map(([process, calls]) => ({ process, calls })),
  };
}
