import { perMillionOf } from './prices-check-decimal.js';

/** A listing's price fields (USD per token) and the field of ours each is compared with. */
export const LISTED_FIELDS = {
  input_cache_read: 'cacheHitPerM',
  prompt: 'inputPerM',
  completion: 'outputPerM',
} as const;

export type ListedField = keyof typeof LISTED_FIELDS;

/** One listed price: as listed (per token) and per million tokens, exactly. */
interface ListedFigure {
  readonly perToken: string;
  readonly perMillion: string;
}

export type ListedFigures = Partial<Record<ListedField, ListedFigure>>;

/** One model of the listing. */
export interface ListedModel {
  /** The id as listed: `primary/primary-flash`. */
  readonly id: string;
  /** Where it is in the listing: `data[3]`. */
  readonly where: string;
  readonly figures: ListedFigures;
  /** Prompt-size tiers (`pricing.tiers`), by threshold. */
  readonly tiers: ReadonlyMap<number, ListedFigures>;
  /** Announced changes (`pricing.scheduled`), by their `effective_from` as listed. */
  readonly scheduled: ReadonlyMap<string, ListedFigures>;
  /** Why its pricing cannot be read (a field of the wrong type), or null. */
  readonly problem: string | null;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

class EntryProblem extends Error {}

/** The figures of a `pricing`-shaped object; an EntryProblem names a field that is no decimal string. */
function figuresOf(value: Json, where: string): ListedFigures {
  const figures: ListedFigures = {};
  for (const field of Object.keys(LISTED_FIELDS) as ListedField[]) {
    const perToken = value[field];
    if (perToken === undefined) continue;
    const perMillion = typeof perToken === 'string' ? perMillionOf(perToken) : null;
    if (perMillion === null) {
      const shown = typeof perToken === 'string' ? JSON.stringify(perToken.slice(0, 40)) : typeof perToken;
      throw new EntryProblem(`${where}.${field}: expected a decimal string of USD per token, got ${shown}`);
    }
    figures[field] = { perToken: perToken as string, perMillion };
  }
  return figures;
}

function listOf(value: unknown, where: string): Json[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every(isObject))
    throw new EntryProblem(`${where}: expected an array of objects`);
  return value;
}

function pricingOf(pricing: unknown, where: string): Pick<ListedModel, 'figures' | 'tiers' | 'scheduled'> {
  if (pricing === undefined) return { figures: {}, tiers: new Map(), scheduled: new Map() };
  if (!isObject(pricing)) throw new EntryProblem(`${where}: expected an object`);
  const tiers = new Map<number, ListedFigures>();
  for (const [index, tier] of listOf(pricing.tiers, `${where}.tiers`).entries()) {
    const above = tier.above_input_tokens;
    if (!Number.isSafeInteger(above) || (above as number) < 0 || tiers.has(above as number)) {
      throw new EntryProblem(
        `${where}.tiers[${index}].above_input_tokens: expected a whole number of tokens, once`,
      );
    }
    tiers.set(above as number, figuresOf(tier, `${where}.tiers[${index}]`));
  }
  const scheduled = new Map<string, ListedFigures>();
  for (const [index, change] of listOf(pricing.scheduled, `${where}.scheduled`).entries()) {
    const from = change.effective_from;
    if (typeof from !== 'string' || Number.isNaN(Date.parse(from))) {
      throw new EntryProblem(
        `${where}.scheduled[${index}].effective_from: expected an ISO date or date-time`,
      );
    }
    scheduled.set(from, figuresOf(change, `${where}.scheduled[${index}]`));
  }
  return { figures: figuresOf(pricing, where), tiers, scheduled };
}

/**
 * The models of a listing's `data`: entries that are not objects with a string `id` are
 * skipped (they name nothing to compare); an entry whose `pricing` cannot be read keeps
 * its `problem`, which fails the check only when it is a model we price.
 */
export function listedModelsOf(data: readonly unknown[]): ListedModel[] {
  return data.flatMap((entry, index): ListedModel[] => {
    if (!isObject(entry) || typeof entry.id !== 'string') return [];
    const where = `data[${index}]`;
    try {
      return [{ id: entry.id, where, ...pricingOf(entry.pricing, `${where}.pricing`), problem: null }];
    } catch (error) {
      if (!(error instanceof EntryProblem)) throw error;
      return [
        { id: entry.id, where, figures: {}, tiers: new Map(), scheduled: new Map(), problem: error.message },
      ];
    }
  });
}
