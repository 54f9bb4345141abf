import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BAD_INPUT_EXIT_CODE, CliError } from './cli-error.js';
import type { PriceCheck } from './prices-check-compare.js';
import { exactNumberOf } from './prices-check-decimal.js';
import type { ListedFigures, ListedModel } from './prices-check-entries.js';

/** The shipped table, from the repository's root. */
const TABLE_FILE = 'packages/prices/src/price-table.json';

type Row = Record<string, unknown> & { tiers?: Row[] };

/** What `--write` did. */
export interface TableUpdate {
  /** The models whose shipped entries were rewritten from the listing. */
  readonly updated: readonly string[];
  /** Models it could not write, and why (a configuration entry, a price no JSON number holds exactly). */
  readonly skipped: readonly string[];
  /** The changeset it added (relative to the root), or null when nothing was updated. */
  readonly changeset: string | null;
}

const FIELDS = [
  ['cache_hit_per_m', 'input_cache_read', 'cache hit'],
  ['input_per_m', 'prompt', 'input'],
  ['output_per_m', 'completion', 'output'],
] as const;

/** A row's figures as the price changelog lists them: `cache hit 0.014, input 0.44, output 1.32; above N input tokens: …`. */
function changelogFigures(row: Row): string {
  const flat = (prices: Row) => FIELDS.map(([key, , label]) => `${label} ${prices[key]}`).join(', ');
  const tiers = (row.tiers ?? []).map(
    (tier) => `; above ${tier.above_input_tokens} input tokens: ${flat(tier)}`,
  );
  return `${flat(row)}${tiers.join('')}`;
}

/** `figures` as table fields (each exactly representable), `fallback`'s where the listing has none; null if one is not. */
function rowFigures(figures: ListedFigures, fallback: Row): Row | null {
  const row: Row = {};
  for (const [key, field] of FIELDS) {
    const listed = figures[field]?.perMillion;
    const value = listed === undefined ? fallback[key] : exactNumberOf(listed);
    if (value === null || value === undefined) return null;
    row[key] = value;
  }
  return row;
}

/** The shipped entry rewritten from the listing, or the reason it cannot be. */
function rewrite(was: Row, entry: ListedModel, source: string, today: string): Row | string {
  const base = rowFigures(entry.figures, was);
  if (base === null) return 'a listed price has more digits than a JSON number holds exactly';
  const tiers: Row[] = [];
  for (const [above, figures] of [...entry.tiers].sort(([a], [b]) => a - b)) {
    const tier = rowFigures(figures, base);
    if (tier === null)
      return `a price of its tier above ${above} tokens has more digits than a JSON number holds exactly`;
    tiers.push({ above_input_tokens: above, ...tier });
  }
  return { ...base, ...(tiers.length > 0 ? { tiers } : {}), source, checked_at: today };
}

/**
 * `prices check --write`: rewrites the shipped table's entries that differ from the listing
 * (its prices and tiers, `checked_at` today, `source` the listing's address) in
 * `<root>/packages/prices/src/price-table.json`, and adds a changeset releasing
 * `@switchboard/prices` alone that lists each change as the price changelog check wants it.
 * Configuration entries and announced changes are not the shipped table's: named as skipped.
 */
export function writeTableUpdates(
  root: string,
  check: PriceCheck,
  listed: readonly ListedModel[],
  listing: string,
): TableUpdate {
  const file = join(root, TABLE_FILE);
  if (!existsSync(file)) {
    throw new CliError(
      `--write: no ${TABLE_FILE} here: run it at the repository's root`,
      BAD_INPUT_EXIT_CODE,
    );
  }
  const table = JSON.parse(readFileSync(file, 'utf8')) as { models: Record<string, Row> };
  const today = new Date().toISOString().slice(0, 10);
  const byId = new Map(listed.map((entry) => [entry.id, entry]));
  const updated: string[] = [];
  const skipped: string[] = [];
  const lines: string[] = [];
  for (const model of new Set(
    check.differences.filter((row) => row.origin === 'config').map((row) => row.model),
  )) {
    skipped.push(`${model}: a configuration entry, not the shipped table's: update it in the configuration`);
  }
  for (const { model, listedId } of check.differences.filter((row) => row.origin === 'table')) {
    const was = Object.hasOwn(table.models, model) ? table.models[model] : undefined;
    const entry = byId.get(listedId);
    if (updated.includes(model) || was === undefined || entry === undefined) continue;
    const row = rewrite(was, entry, `the gateway's listing at ${listing}`, today);
    if (typeof row === 'string') {
      if (!skipped.includes(`${model}: ${row}`)) skipped.push(`${model}: ${row}`);
      continue;
    }
    table.models[model] = row;
    updated.push(model);
    lines.push(
      `- \`${model}\`: ${changelogFigures(was)} → ${changelogFigures(row)} USD per million tokens (checked ${was.checked_at} → ${today})`,
    );
  }
  if (updated.length === 0) return { updated, skipped, changeset: null };
  writeFileSync(file, `${JSON.stringify(table, null, 2)}\n`);
  const changeset = `.changeset/prices-${today}-${randomBytes(3).toString('hex')}.md`;
  writeFileSync(
    join(root, changeset),
    `---\n'@switchboard/prices': patch\n---\n\nPrice table changes (from ${listing}):\n\n${lines.join('\n')}\n`,
  );
  return { updated, skipped, changeset };
}
