import {
  type BookPrice,
  formatNanoUsd,
  nanoUsdOf,
  PRICES_VERSION,
  PriceBook,
  type Prices,
  providerCostOf,
} from '@switchboard/prices';
import { BudgetCheck, type BudgetFigures } from './budget-check.js';
import { CallIdIndex } from './call-id-index.js';
import type { CheckedJournalLine } from './check-journal-line.js';
import { contradictionOf } from './line-contradiction.js';
import { LineSequences, type SequenceFigures } from './line-sequences.js';
import { cappedIssueWarner, type JournalIssue, scanJournal } from './read-journal.js';
import type { JournalSource } from './scan-lines.js';
import type { DifferingLine, InconsistentLine, UnverifiableLine } from './verify-findings.js';

/** What `verifyJournal` found. */
export interface JournalVerification {
  /**
   * True when nothing is wrong — no line's cost differs, no line contradicts itself, no line is
   * missing, repeated or out of order, no budget scope overspent, every budget entry could be
   * checked — and every line could be verified, or `allowUnverifiable` was given: no cost
   * unverifiable, no estimate, no unreadable line, no line without a number, no sent call
   * charged to no scope where its process's others were.
   */
  readonly ok: boolean;
  /** Whether lines that cannot be verified were accepted (`VerifyJournalOptions.allowUnverifiable`). */
  readonly allowUnverifiable: boolean;
  /** Lines read and checked (skipped lines are not among them; a repeated call is, once named). */
  readonly lines: number;
  /** Lines whose cost was re-derived to the nano-dollar. */
  readonly verified: number;
  /** Lines whose recorded cost differs: their count, and the first ones (at most `maxListed`). */
  readonly differingCount: number;
  readonly differing: readonly DifferingLine[];
  /**
   * Lines whose cost cannot be re-derived with the installed data (an entry it no longer has,
   * clamped figures, a reply with usage and no cost…): their count and the first ones.
   */
  readonly unverifiableCount: number;
  readonly unverifiable: readonly UnverifiableLine[];
  /**
   * Lines whose cost is an estimate (settlement `estimate`: a lower bound from what a stream
   * received), which their usage cannot re-derive: their count and the first line numbers.
   */
  readonly estimates: { readonly count: number; readonly lines: readonly number[] };
  /** Lines whose facts contradict one another (a reply settled exact with 0 prompt tokens…): their count and the first ones. */
  readonly inconsistentCount: number;
  readonly inconsistent: readonly InconsistentLine[];
  /** Lines with no cost to verify: unsettled or never sent. */
  readonly withoutCost: number;
  /** Lines skipped as unreadable (named by the reader): their calls are in no figure. */
  readonly skipped: number;
  /**
   * The writers' numbering of their lines (`host`, `pid`, `seq`) and the calls' ids (`callId`):
   * numbers no line has (`missing`, not counting those as many unreadable lines in the same
   * place explain: `explained`), lines repeated (`duplicates`, by number or by call; a repeated
   * call is counted once in every other figure) and out of order; each named in `findings` (the
   * first ones, by line). `unnumbered`: lines without a number (journal format 1, or written by
   * other code), among which none of that can be found. `unheldCallIds`: ids past the most held
   * (2,097,152), whose repeats are found only by their number.
   */
  readonly sequence: SequenceFigures & {
    readonly unnumbered: { readonly count: number; readonly lines: readonly number[] };
    readonly unheldCallIds: number;
  };
  /**
   * Budget scopes (each line's `budgets`, or `budget`, of `{ scope, limitUsd }`) and the ones whose
   * settled spend in the journal passed the limit; the entries whose scope or limit no budget can
   * have (`limitUsd: 1e308`, `-1`, `"x"`: `invalid`); a scope whose limit differs between lines of
   * one process (`changed`); a sent call charged to no scope where its process's other calls were
   * (`uncharged`, which cannot be verified): the counts, and the first ones.
   */
  readonly budgets: BudgetFigures;
  /** The `@switchboard/prices` version the lines were re-derived with. */
  readonly pricesVersion: string;
}

/** Options of {@link verifyJournal} and {@link JournalVerifier}. */
export interface VerifyJournalOptions {
  /** The prices to re-derive with: default the installed table (`new PriceBook()`); give the run's own entries too. */
  readonly book?: PriceBook;
  /** Most lines listed for each finding (the counts are exact); default 100. */
  readonly maxListed?: number;
  /**
   * Accept lines that cannot be verified (see {@link JournalVerification.ok}): they are still
   * counted and named, but `ok` no longer depends on them. Default false.
   */
  readonly allowUnverifiable?: boolean;
  /** Told about each skipped line (default: the first 20 as process warnings). */
  readonly onIssue?: (issue: JournalIssue) => void;
  /** How issues name the source. */
  readonly name?: string;
}

type Fields = Record<string, unknown>;

/** A line's cost: null when it re-derives; else what differs (`derivedNanoUsd`), or why it cannot be re-derived. */
type LineOutcome = { readonly derivedNanoUsd?: number; readonly why: string } | null;

/**
 * Verifies a journal line by line, in memory bounded by its writers and budget scopes (and
 * at most 48 MiB for the first 2,097,152 call ids): re-derives each line's cost from its
 * usage, time and recorded price, checks that its facts agree, follows each writer's numbering
 * and the calls' ids to find lines missing, repeated or out of order, and sums each budget
 * scope's settled spend. `skip()` each unreadable line and `add(checked, lineNumber)` each
 * other, in the file's order, then `result()`.
 */
export class JournalVerifier {
  readonly #book: PriceBook;
  readonly #maxListed: number;
  readonly #allowUnverifiable: boolean;
  #lines = 0;
  #verified = 0;
  #differingCount = 0;
  readonly #differing: DifferingLine[] = [];
  #unverifiableCount = 0;
  readonly #unverifiable: UnverifiableLine[] = [];
  #estimates = 0;
  readonly #estimateLines: number[] = [];
  #inconsistentCount = 0;
  readonly #inconsistent: InconsistentLine[] = [];
  #withoutCost = 0;
  #skipped = 0;
  #unnumbered = 0;
  readonly #unnumberedLines: number[] = [];
  readonly #callIds = new CallIdIndex();
  readonly #sequences: LineSequences;
  readonly #budgets: BudgetCheck;

  constructor(options: VerifyJournalOptions = {}) {
    this.#book = options.book ?? new PriceBook();
    this.#maxListed = options.maxListed ?? 100;
    this.#allowUnverifiable = options.allowUnverifiable === true;
    this.#sequences = new LineSequences(this.#maxListed);
    this.#budgets = new BudgetCheck(this.#maxListed);
  }

  /** Counts a line the reader skipped. */
  skip(): void {
    this.#skipped += 1;
  }

  /** Verifies one checked line. */
  add(checked: CheckedJournalLine, lineNumber: number): void {
    this.#lines += 1;
    const line = checked.line as unknown as Fields;
    const model = String(line.model);
    const run = this.#follow(line, checked, lineNumber);
    // A call written twice is named once, and counted once.
    if (run === false) return;
    this.#budgets.add(line, checked, lineNumber, run);
    const contradiction = contradictionOf(line, checked.settlement);
    if (contradiction !== null) {
      this.#inconsistentCount += 1;
      if (this.#inconsistent.length < this.#maxListed)
        this.#inconsistent.push({ line: lineNumber, model, why: contradiction });
      return;
    }
    const recorded = checked.costNanoUsd;
    if (checked.settlement === 'estimate') {
      this.#estimates += 1;
      if (this.#estimateLines.length < this.#maxListed) this.#estimateLines.push(lineNumber);
      return;
    }
    const outcome: LineOutcome | undefined =
      recorded === null ? this.#uncosted(line, checked) : this.#check(line, checked, recorded);
    if (outcome === undefined) this.#withoutCost += 1;
    else if (outcome === null) this.#verified += 1;
    else if (outcome.derivedNanoUsd !== undefined) {
      this.#differingCount += 1;
      if (this.#differing.length < this.#maxListed)
        this.#differing.push({
          line: lineNumber,
          model,
          recordedNanoUsd: recorded as number,
          derivedNanoUsd: outcome.derivedNanoUsd,
          why: outcome.why,
        });
    } else {
      this.#unverifiableCount += 1;
      if (this.#unverifiable.length < this.#maxListed)
        this.#unverifiable.push({ line: lineNumber, model, why: outcome.why });
    }
  }

  /**
   * Follows the line's call id and its writer's numbering: false for a call an earlier line
   * already has; else its writer's run, or null when it has no number.
   */
  #follow(line: Fields, checked: CheckedJournalLine, lineNumber: number): string | null | false {
    const host = typeof line.host === 'string' ? line.host : '(unnamed)';
    const pid = typeof line.pid === 'number' ? line.pid : null;
    const seq = typeof line.seq === 'number' ? line.seq : null;
    if (typeof line.callId === 'string') {
      const earlier = this.#callIds.add(line.callId, lineNumber);
      if (earlier !== null) {
        this.#sequences.duplicateCall(lineNumber, host, pid, seq, line.callId, earlier);
        return false;
      }
    }
    const run =
      seq === null ? null : this.#sequences.add(lineNumber, host, pid, seq, checked.at, this.#skipped);
    if (run === null) {
      this.#unnumbered += 1;
      if (this.#unnumberedLines.length < this.#maxListed) this.#unnumberedLines.push(lineNumber);
    }
    return run;
  }

  /**
   * A line without a cost: undefined when it has none to verify (unsettled, never sent); a reply
   * with usage and no cost cannot be verified (it ran unpriced, or its cost was removed).
   */
  #uncosted(line: Fields, checked: CheckedJournalLine): { why: string } | undefined {
    if (checked.settlement !== 'exact' || typeof line.usage !== 'object' || line.usage === null)
      return undefined;
    if (typeof line.costError === 'string')
      return { why: `its cost model failed (${line.costError}), so it has no cost to verify` };
    const pricedAs = typeof line.pricedAs === 'string' ? line.pricedAs : String(line.model);
    const cost = this.#book.costOf(pricedAs, line.usage, { at: checked.at });
    if (cost === null)
      return {
        why: `a reply with usage and no cost: ${pricedAs} has no price in the installed data either, so it was unpriced`,
      };
    return {
      why: `a reply with usage and no cost, though the installed data prices it at ${formatNanoUsd(nanoUsdOf(cost.costUsd))} USD: it ran unpriced, or its cost was removed`,
    };
  }

  /** Null when the line verifies; else what differs, or why it cannot be re-derived. */
  #check(
    line: Fields,
    checked: CheckedJournalLine,
    recorded: number,
  ): { derivedNanoUsd: number; why: string } | { why: string } | null {
    // Both figures on the line must say the same thing first.
    const usd = line.costUsd;
    if (typeof usd === 'number' && typeof line.costNanoUsd === 'number' && usd !== recorded / 1e9) {
      return {
        derivedNanoUsd: recorded,
        why: `costUsd ${usd} is not costNanoUsd ${recorded} / 1e9`,
      };
    }
    const clamped = line.clamped;
    if (typeof clamped === 'object' && clamped !== null) {
      const fields = Object.keys(clamped).filter(
        (field) => field.startsWith('usage') || field.startsWith('cost'),
      );
      if (fields.length > 0)
        return {
          why: `its ${fields.join(', ')} was clamped when journaled, so the recorded figures are not the ones priced`,
        };
    }
    if (checked.settlement !== 'exact') {
      return { why: `settlement ${checked.settlement} with a cost: no trusted usage to re-derive it from` };
    }
    const source = line.priceSource;
    if (source === 'provider') return this.#checkProvider(line, recorded);
    if (source !== 'table' && source !== 'endpoint')
      return {
        why: `priced from ${source === undefined || source === null ? 'an unnamed source' : `"${String(source)}"`}, which verify cannot re-derive`,
      };
    const pricedAs = typeof line.pricedAs === 'string' ? line.pricedAs : String(line.model);
    if (source === 'endpoint' && typeof line.priceVersion !== 'string')
      return {
        why: `priced with the endpoint's own prices for ${pricedAs}, which the journal does not hold`,
      };
    const price = this.#book.priceOf(pricedAs, { at: checked.at });
    if (price === null)
      return {
        why: `the installed price data has no price for ${pricedAs} at ${String(line.at)}: priced by an entry it no longer knows`,
      };
    const cost = this.#book.costOf(pricedAs, line.usage, { at: checked.at });
    if (cost === null) return { why: 'its usage cannot be read' };
    const derived = nanoUsdOf(cost.costUsd);
    if (derived === recorded) return null;
    const changed = this.#entryChanged(line, pricedAs, price);
    if (changed !== null)
      return {
        why: `${changed}; the installed price re-derives ${formatNanoUsd(derived)} USD, recorded ${formatNanoUsd(recorded)}`,
      };
    return {
      derivedNanoUsd: derived,
      why: `costNanoUsd ${recorded}, re-derived ${derived} from its usage at ${describePrice(price)}`,
    };
  }

  /** How the line's price entry is not the installed one, or null when it is (or nothing says otherwise). */
  #entryChanged(line: Fields, pricedAs: string, price: BookPrice): string | null {
    const installed = this.#book.provenanceOf(pricedAs)?.checkedAt ?? null;
    const recordedDate = typeof line.priceCheckedAt === 'string' ? line.priceCheckedAt : null;
    if (recordedDate !== null && recordedDate !== installed)
      return `priced by the entry for ${pricedAs} checked ${recordedDate}, which the installed data no longer has (its entry is ${installed === null ? 'undated' : `checked ${installed}`})`;
    const tariff = line.tariff as Fields | null | undefined;
    const entry = typeof tariff?.entry === 'string' ? tariff.entry : null;
    if (entry !== (price.tariff?.entry ?? null))
      return `priced by the tariff ${entry === null ? '(flat)' : `"${entry}"`} of ${pricedAs}, the installed data by ${price.tariff === null ? 'a flat price' : `"${price.tariff.entry}"`}`;
    // Without a checked date, the data's version says whether the entry can have changed.
    const version = typeof line.priceVersion === 'string' ? line.priceVersion : null;
    if (recordedDate === null && version !== PRICES_VERSION)
      return `priced with ${version === null ? 'unnamed price data' : `@switchboard/prices ${version}`} by an undated entry, installed ${PRICES_VERSION}`;
    return null;
  }

  #checkProvider(
    line: Fields,
    recorded: number,
  ): { derivedNanoUsd: number; why: string } | { why: string } | null {
    const provider = providerCostOf(line.usage);
    if (provider === null)
      return { why: "priced from the provider's usage.cost, which its journaled usage does not hold" };
    const derived = nanoUsdOf(provider);
    if (derived === recorded) return null;
    return {
      derivedNanoUsd: derived,
      why: `costNanoUsd ${recorded}, but its usage.cost is ${provider} USD (${derived} nano-dollars)`,
    };
  }

  /** What was found (ends the journal: call it once every line was added). */
  result(): JournalVerification {
    this.#sequences.finish(this.#skipped);
    const sequence = this.#sequences.result();
    const budgets = this.#budgets.result();
    const wrong =
      this.#differingCount > 0 ||
      this.#inconsistentCount > 0 ||
      sequence.findingCount > 0 ||
      budgets.overspent.length > 0 ||
      budgets.invalidCount > 0 ||
      budgets.changedCount > 0;
    const unverified =
      this.#unverifiableCount > 0 ||
      this.#estimates > 0 ||
      this.#skipped > 0 ||
      this.#unnumbered > 0 ||
      budgets.unchargedCount > 0;
    return Object.freeze({
      ok: !wrong && (this.#allowUnverifiable || !unverified),
      allowUnverifiable: this.#allowUnverifiable,
      lines: this.#lines,
      verified: this.#verified,
      differingCount: this.#differingCount,
      differing: Object.freeze([...this.#differing]),
      unverifiableCount: this.#unverifiableCount,
      unverifiable: Object.freeze([...this.#unverifiable]),
      estimates: Object.freeze({ count: this.#estimates, lines: Object.freeze([...this.#estimateLines]) }),
      inconsistentCount: this.#inconsistentCount,
      inconsistent: Object.freeze([...this.#inconsistent]),
      withoutCost: this.#withoutCost,
      skipped: this.#skipped,
      sequence: Object.freeze({
        writers: sequence.writers,
        unnumbered: Object.freeze({
          count: this.#unnumbered,
          lines: Object.freeze([...this.#unnumberedLines]),
        }),
        missing: sequence.missing,
        explained: sequence.explained,
        duplicates: sequence.duplicates,
        outOfOrder: sequence.outOfOrder,
        findingCount: sequence.findingCount,
        findings: sequence.findings,
        unheldCallIds: this.#callIds.unheld,
      }),
      budgets,
      pricesVersion: PRICES_VERSION,
    });
  }
}

function describePrice(price: BookPrice): string {
  const prices: Prices = price.prices;
  const tariff =
    price.tariff === null
      ? ''
      : `, tariff ${price.tariff.entry}${price.tariff.band === null ? '' : ` / ${price.tariff.band}`}`;
  const tiers =
    prices.tiers === undefined
      ? ''
      : `, with ${prices.tiers.length} prompt-size tier${prices.tiers.length === 1 ? '' : 's'}`;
  return `${price.model}'s ${prices.cacheHitPerM} / ${prices.inputPerM} / ${prices.outputPerM} per million tokens${tiers}${tariff}, @switchboard/prices ${PRICES_VERSION}`;
}

/**
 * Verifies every line of a journal (a path, `-` for stdin, or a stream of bytes): re-derives
 * each line's cost from its usage, its time and its recorded price, with the installed price
 * data (`options.book`, dated tariffs included), to the nano-dollar; names a line whose facts
 * contradict one another; follows each writer's numbering (`host`, `pid`, `seq`) and the calls'
 * ids (`callId`) to name lines missing, repeated or out of order; sums each budget scope's
 * settled spend against its limit. Lines priced by an entry the data no longer has, estimates,
 * unreadable lines and lines without a number cannot be verified: named and counted, and `ok`
 * only with `allowUnverifiable`. What no check can find — a file rewritten consistently, lines
 * dropped from a writer's end — is said in docs/journal-and-report.md.
 */
export async function verifyJournal(
  source: JournalSource,
  options: VerifyJournalOptions = {},
): Promise<JournalVerification> {
  const verifier = new JournalVerifier(options);
  const warner = options.onIssue === undefined ? cappedIssueWarner() : null;
  const onIssue = options.onIssue ?? warner?.warn;
  await scanJournal(source, {
    ...(options.name === undefined ? {} : { name: options.name }),
    onLine: (checked, lineNumber) => verifier.add(checked, lineNumber),
    onIssue: (issue) => {
      verifier.skip();
      onIssue?.(issue);
    },
  });
  warner?.end();
  return verifier.result();
}
