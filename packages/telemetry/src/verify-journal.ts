import {
  type BookPrice,
  formatNanoUsd,
  nanoUsdOf,
  PRICES_VERSION,
  PriceBook,
  type Prices,
  providerCostOf,
} from '@switchboard/prices';
import type { CheckedJournalLine } from './check-journal-line.js';
import { NanoSum } from './nano-usd.js';
import { cappedIssueWarner, type JournalIssue, scanJournal } from './read-journal.js';
import type { JournalSource } from './scan-lines.js';

/** A line whose recorded cost is not what its usage, time and price re-derive. */
export interface DifferingLine {
  readonly line: number;
  readonly model: string;
  /** The recorded cost, in nano-dollars. */
  readonly recordedNanoUsd: number;
  /** What re-deriving it gives, in nano-dollars. */
  readonly derivedNanoUsd: number;
  /** What differs, in words (`costNanoUsd 292016, re-derived 292017 at primary-flash's …`). */
  readonly why: string;
}

/** A line whose cost cannot be re-derived, and why (not a wrong line). */
export interface UnverifiableLine {
  readonly line: number;
  readonly model: string;
  readonly why: string;
}

/** A budget scope whose settled spend in the journal passes its limit. */
export interface OverspentScope {
  readonly scope: string;
  readonly limitNanoUsd: number;
  readonly spentNanoUsd: number;
  /** The line on which the spend first passed the limit. */
  readonly line: number;
}

/** A line's budget entry whose scope or limit no budget can have: named, not checked. */
export interface InvalidBudget {
  readonly line: number;
  /** The entry's scope, or null when it has no scope name. */
  readonly scope: string | null;
  /** What is wrong with it (`limitUsd 1e+308 is not a limit: …`). */
  readonly why: string;
}

/** What `verifyJournal` found. */
export interface JournalVerification {
  /** True when no line's cost differs, no budget scope overspent and every budget entry could be checked. */
  readonly ok: boolean;
  /** Lines read and checked (skipped lines are not among them). */
  readonly lines: number;
  /** Lines whose cost was re-derived to the nano-dollar. */
  readonly verified: number;
  /** Lines whose recorded cost differs: their count, and the first ones (at most `maxListed`). */
  readonly differingCount: number;
  readonly differing: readonly DifferingLine[];
  /** Lines whose cost cannot be re-derived with the installed data: their count and the first ones. */
  readonly unverifiableCount: number;
  readonly unverifiable: readonly UnverifiableLine[];
  /**
   * Lines whose cost is an estimate (settlement `estimate`: a lower bound from what a stream
   * received), which their usage cannot re-derive: their count and the first line numbers.
   */
  readonly estimates: { readonly count: number; readonly lines: readonly number[] };
  /** Lines with no cost to verify: unsettled, never sent, or unpriced. */
  readonly withoutCost: number;
  /** Lines skipped as unreadable (named by the reader). */
  readonly skipped: number;
  /**
   * Budget scopes (each line's `budgets`, or `budget`, of `{ scope, limitUsd }`) and the ones whose
   * settled spend in the journal passed the limit; the entries whose scope or limit no budget can
   * have (`limitUsd: 1e308`, `-1`, `"x"`): their count and the first ones.
   */
  readonly budgets: {
    readonly scopes: number;
    readonly overspent: readonly OverspentScope[];
    readonly invalidCount: number;
    readonly invalid: readonly InvalidBudget[];
  };
  /** The `@switchboard/prices` version the lines were re-derived with. */
  readonly pricesVersion: string;
}

/** Options of {@link verifyJournal} and {@link JournalVerifier}. */
export interface VerifyJournalOptions {
  /** The prices to re-derive with: default the installed table (`new PriceBook()`); give the run's own entries too. */
  readonly book?: PriceBook;
  /** Most differing and unverifiable lines listed each (the counts are exact); default 100. */
  readonly maxListed?: number;
  /** Told about each skipped line (default: the first 20 as process warnings). */
  readonly onIssue?: (issue: JournalIssue) => void;
  /** How issues name the source. */
  readonly name?: string;
}

type Fields = Record<string, unknown>;

/**
 * Re-derives each journal line's cost from its usage, time and recorded price, line by
 * line, in flat memory: `add(checked, lineNumber)` each, then `result()`.
 */
export class JournalVerifier {
  readonly #book: PriceBook;
  readonly #maxListed: number;
  #lines = 0;
  #verified = 0;
  #differingCount = 0;
  readonly #differing: DifferingLine[] = [];
  #unverifiableCount = 0;
  readonly #unverifiable: UnverifiableLine[] = [];
  #estimates = 0;
  readonly #estimateLines: number[] = [];
  #withoutCost = 0;
  #skipped = 0;
  readonly #scopes = new Map<string, { limit: number; spent: NanoSum; over: number | null }>();
  #invalidBudgetCount = 0;
  readonly #invalidBudgets: InvalidBudget[] = [];

  constructor(options: VerifyJournalOptions = {}) {
    this.#book = options.book ?? new PriceBook();
    this.#maxListed = options.maxListed ?? 100;
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
    this.#budget(line, checked, lineNumber);
    const recorded = checked.costNanoUsd;
    if (checked.settlement === 'estimate') {
      this.#estimates += 1;
      if (this.#estimateLines.length < this.#maxListed) this.#estimateLines.push(lineNumber);
      return;
    }
    if (recorded === null) {
      this.#withoutCost += 1;
      return;
    }
    const outcome = this.#check(line, checked, recorded);
    if (outcome === null) this.#verified += 1;
    else if ('derivedNanoUsd' in outcome) {
      this.#differingCount += 1;
      if (this.#differing.length < this.#maxListed)
        this.#differing.push({ line: lineNumber, model, recordedNanoUsd: recorded, ...outcome });
    } else {
      this.#unverifiableCount += 1;
      if (this.#unverifiable.length < this.#maxListed)
        this.#unverifiable.push({ line: lineNumber, model, why: outcome.why });
    }
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

  #budget(line: Fields, checked: CheckedJournalLine, lineNumber: number): void {
    for (const budget of budgetsOf(line)) {
      const scope = budget.scope;
      const limit = budget.limitUsd;
      // No limit (null, or none written): nothing to check the spend against.
      if (limit === null || limit === undefined) continue;
      const why = invalidBudget(scope, limit);
      if (why !== null) {
        this.#invalidBudgetCount += 1;
        if (this.#invalidBudgets.length < this.#maxListed)
          this.#invalidBudgets.push({
            line: lineNumber,
            scope: typeof scope === 'string' ? scope : null,
            why,
          });
        continue;
      }
      if (typeof scope !== 'string' || typeof limit !== 'number') continue;
      let tally = this.#scopes.get(scope);
      if (tally === undefined) {
        if (this.#scopes.size >= 10_000) continue;
        tally = { limit: nanoUsdOf(limit), spent: new NanoSum(), over: null };
        this.#scopes.set(scope, tally);
      }
      // Settled spend: what exact and estimated calls cost (an unsettled call has no figure).
      if (checked.costNanoUsd !== null) tally.spent.add(checked.costNanoUsd);
      if (tally.over === null && tally.spent.nanoUsd > tally.limit) tally.over = lineNumber;
    }
  }

  /** What was found so far. */
  result(): JournalVerification {
    const overspent = [...this.#scopes]
      .filter(([, tally]) => tally.over !== null)
      .map(([scope, tally]) => ({
        scope,
        limitNanoUsd: tally.limit,
        spentNanoUsd: tally.spent.nanoUsd,
        line: tally.over as number,
      }));
    return Object.freeze({
      ok: this.#differingCount === 0 && overspent.length === 0 && this.#invalidBudgetCount === 0,
      lines: this.#lines,
      verified: this.#verified,
      differingCount: this.#differingCount,
      differing: Object.freeze([...this.#differing]),
      unverifiableCount: this.#unverifiableCount,
      unverifiable: Object.freeze([...this.#unverifiable]),
      estimates: Object.freeze({ count: this.#estimates, lines: Object.freeze([...this.#estimateLines]) }),
      withoutCost: this.#withoutCost,
      skipped: this.#skipped,
      budgets: Object.freeze({
        scopes: this.#scopes.size,
        overspent: Object.freeze(overspent),
        invalidCount: this.#invalidBudgetCount,
        invalid: Object.freeze([...this.#invalidBudgets]),
      }),
      pricesVersion: PRICES_VERSION,
    });
  }
}

/**
 * The budget scopes a line's call went through: its `budgets` (a list) or `budget` (one),
 * each `{ scope, limitUsd }`, on the line or under its `extra` (a journal's annotation).
 */
function budgetsOf(line: Fields): Fields[] {
  const found: Fields[] = [];
  for (const holder of [line, line.extra]) {
    if (typeof holder !== 'object' || holder === null) continue;
    const { budget, budgets } = holder as Fields;
    if (typeof budget === 'object' && budget !== null && !Array.isArray(budget)) found.push(budget as Fields);
    if (Array.isArray(budgets))
      for (const entry of budgets.slice(0, 16))
        if (typeof entry === 'object' && entry !== null) found.push(entry as Fields);
  }
  return found;
}

// The most nanoUsdOf can count exactly: Number.MAX_SAFE_INTEGER nano-dollars, about 9 million USD.
const MAX_LIMIT_USD = Number.MAX_SAFE_INTEGER / 1e9;

/** Why a budget entry's scope or limit is not one a budget can have, or null when both are. */
function invalidBudget(scope: unknown, limit: unknown): string | null {
  if (typeof scope !== 'string' || scope === '')
    return `a budget entry without a scope name (scope ${shortJson(scope)})`;
  if (typeof limit === 'number' && limit >= 0 && limit <= MAX_LIMIT_USD) return null;
  return `budget scope ${JSON.stringify(scope)}: limitUsd ${shortJson(limit)} is not a limit (expected null or a number of USD from 0 to ${Math.floor(MAX_LIMIT_USD).toLocaleString('en-US')}), so its spend cannot be checked`;
}

/** A value as JSON writes it (a number as JavaScript does: 1e+308), cut to 40 characters. */
function shortJson(value: unknown): string {
  let text: string;
  try {
    text = typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    text = typeof value;
  }
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
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
 * Re-derives the cost of every line of a journal (a path, `-` for stdin, or a stream of
 * bytes) from its usage, its time and its recorded price, with the installed price data
 * (`options.book`, dated tariffs included), to the nano-dollar. Lines priced by an entry the
 * data no longer has are unverifiable, not wrong; estimates are not re-derivable from usage.
 * Lines carrying a budget's `scope` and `limitUsd` are also summed per scope: a scope whose
 * settled spend passes its limit fails the check.
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
