import type { Prices } from '@switchboard/prices';
import { decimalOfNumber } from './prices-check-decimal.js';
import {
  LISTED_FIELDS,
  type ListedField,
  type ListedFigures,
  type ListedModel,
} from './prices-check-entries.js';
import type { HeldPrice } from './prices-check-held.js';
import { listedIdsByOurs, ourIdOf } from './prices-check-ids.js';

/** One figure of ours that the listing prices otherwise (or one side has and the other lacks). */
interface PriceDifference {
  readonly model: string;
  readonly listedId: string;
  readonly origin: HeldPrice['origin'];
  /** `inputPerM`, `tiers[>128000].outputPerM`, `announced[2027-01-01T00:00:00.000Z].cacheHitPerM`, or a whole tier. */
  readonly field: string;
  /** USD per million tokens as exact decimals; null where that side has no such price. */
  readonly ours: string | null;
  readonly theirs: string | null;
  readonly checkedAt: string | null;
  readonly source: string | null;
}

/** What a check found. */
export interface PriceCheck {
  /** Figures compared on both sides. */
  readonly compared: number;
  readonly differences: readonly PriceDifference[];
  /** Listed ids that map to none of our models. */
  readonly theirsWeLack: readonly string[];
  /** Our models the listing does not have. */
  readonly oursTheyLack: readonly { readonly model: string; readonly origin: HeldPrice['origin'] }[];
  /** Our figures the listing gives no figure for (a listing without cache prices): `model field`. */
  readonly unlisted: readonly string[];
  /** Our models several listed ids map to: not compared. */
  readonly ambiguous: readonly { readonly model: string; readonly listedIds: readonly string[] }[];
  /** Our models whose listed pricing cannot be read: the check cannot vouch for them. */
  readonly unreadable: readonly string[];
}

type Figures = Pick<Prices, 'cacheHitPerM' | 'inputPerM' | 'outputPerM'>;

const figuresText = (figures: Figures): string =>
  `${decimalOfNumber(figures.cacheHitPerM)} / ${decimalOfNumber(figures.inputPerM)} / ${decimalOfNumber(figures.outputPerM)}`;
const listedText = (figures: ListedFigures): string =>
  (Object.keys(LISTED_FIELDS) as ListedField[]).map((field) => figures[field]?.perMillion ?? '-').join(' / ');

/**
 * Compares every price we hold with the listing, exactly (decimal text against decimal
 * text): the base prices, each prompt-size tier (matched by threshold) and each announced
 * change (matched by its date).
 */
export function comparePrices(held: readonly HeldPrice[], listed: readonly ListedModel[]): PriceCheck {
  const byId = new Map(listed.map((model) => [model.id, model]));
  const listedFor = listedIdsByOurs(listed.map((model) => model.id));
  const ours = new Set(held.map((price) => price.model));
  const differences: PriceDifference[] = [];
  const unlisted: string[] = [];
  const oursTheyLack: { model: string; origin: HeldPrice['origin'] }[] = [];
  const ambiguous: { model: string; listedIds: string[] }[] = [];
  const unreadable: string[] = [];
  let compared = 0;
  for (const price of held) {
    const ids = listedFor.get(price.model) ?? [];
    const entry = ids.length === 1 ? byId.get(ids[0] as string) : undefined;
    if (ids.length > 1) ambiguous.push({ model: price.model, listedIds: ids });
    if (ids.length === 0) oursTheyLack.push({ model: price.model, origin: price.origin });
    if (entry === undefined) continue;
    if (entry.problem !== null) {
      unreadable.push(`${price.model}: ${entry.problem}`);
      continue;
    }
    const differ = (field: string, mine: string | null, theirs: string | null) =>
      differences.push({
        model: price.model,
        listedId: entry.id,
        origin: price.origin,
        field,
        ours: mine,
        theirs,
        checkedAt: price.checkedAt,
        source: price.source,
      });
    const compare = (prefix: string, mine: Figures, theirs: ListedFigures) => {
      for (const [field, key] of Object.entries(LISTED_FIELDS) as [ListedField, keyof Figures][]) {
        const theirFigure = theirs[field]?.perMillion;
        if (theirFigure === undefined) {
          unlisted.push(`${price.model} ${prefix}${key}`);
          continue;
        }
        compared += 1;
        const myFigure = decimalOfNumber(mine[key]);
        if (myFigure !== theirFigure) differ(`${prefix}${key}`, myFigure, theirFigure);
      }
    };
    compare('', price.prices, entry.figures);
    const myTiers = new Map((price.prices.tiers ?? []).map((tier) => [tier.aboveInputTokens, tier]));
    for (const above of new Set([...myTiers.keys(), ...entry.tiers.keys()])) {
      const mine = myTiers.get(above);
      const theirs = entry.tiers.get(above);
      const field = `tiers[>${above}]`;
      if (mine !== undefined && theirs !== undefined) compare(`${field}.`, mine, theirs);
      else differ(field, mine ? figuresText(mine) : null, theirs ? listedText(theirs) : null);
    }
    const theirChanges = new Map([...entry.scheduled].map(([from, figures]) => [Date.parse(from), figures]));
    const myChanges = new Map(
      price.announced.map((change) => [Date.parse(change.effectiveFrom), change.prices]),
    );
    for (const from of new Set([...myChanges.keys(), ...theirChanges.keys()])) {
      const mine = myChanges.get(from);
      const theirs = theirChanges.get(from);
      const field = `announced[${new Date(from).toISOString()}]`;
      if (mine !== undefined && theirs !== undefined) compare(`${field}.`, mine, theirs);
      else differ(field, mine ? figuresText(mine) : null, theirs ? listedText(theirs) : null);
    }
  }
  const theirsWeLack = listed.map((model) => model.id).filter((id) => !ours.has(ourIdOf(id)));
  return { compared, differences, theirsWeLack, oursTheyLack, unlisted, ambiguous, unreadable };
}
