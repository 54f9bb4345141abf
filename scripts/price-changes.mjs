// What changed between two versions of packages/prices/src/price-table.json, one line per
// model, as the CHANGELOG entry of a price release lists it. Pure functions: the check
// script (check-price-changelog.mjs) and its test use them.

const FIELDS = [
  ['cache_hit_per_m', 'cache hit'],
  ['input_per_m', 'input'],
  ['output_per_m', 'output'],
];

/** A row's figures in words: `cache hit 0.014, input 0.44, output 1.32`, its tiers after them. */
function figures(row) {
  const base = FIELDS.map(([key, label]) => `${label} ${row[key]}`).join(', ');
  const tiers = (row.tiers ?? []).map(
    (tier) =>
      `; above ${tier.above_input_tokens} input tokens: ${FIELDS.map(([key, label]) => `${label} ${tier[key]}`).join(', ')}`,
  );
  return `${base}${tiers.join('')}`;
}

function tiersText(row) {
  return JSON.stringify(row.tiers ?? []);
}

/**
 * The changes from `before` to `after` (two parsed price tables), one per model whose entry
 * was added, removed or changed, in the order of `after`'s models then the removed ones:
 * `{ model, kind, line }`, `line` the CHANGELOG line naming the old and new prices and dates.
 */
export function priceChanges(before, after) {
  const old = before?.models ?? {};
  const next = after?.models ?? {};
  const changes = [];
  for (const [model, row] of Object.entries(next)) {
    const was = old[model];
    if (was === undefined) {
      changes.push({
        model,
        kind: 'added',
        line: `- \`${model}\` added: ${figures(row)} USD per million tokens (checked ${row.checked_at})`,
      });
      continue;
    }
    const pricesChanged = FIELDS.some(([key]) => was[key] !== row[key]) || tiersText(was) !== tiersText(row);
    // A price that gains its first checked date is not a change of price; a new date or source is a re-check.
    const datesChanged =
      was.checked_at !== undefined &&
      (was.checked_at !== row.checked_at || (was.source !== undefined && was.source !== row.source));
    if (!pricesChanged && !datesChanged) continue;
    changes.push(
      pricesChanged
        ? {
            model,
            kind: 'changed',
            line: `- \`${model}\`: ${figures(was)} → ${figures(row)} USD per million tokens (checked ${was.checked_at} → ${row.checked_at})`,
          }
        : {
            model,
            kind: 'rechecked',
            line: `- \`${model}\`: unchanged, ${figures(row)} USD per million tokens (checked ${was.checked_at} → ${row.checked_at}${was.source === row.source ? '' : `; source now ${row.source}`})`,
          },
    );
  }
  for (const [model, row] of Object.entries(old)) {
    if (next[model] !== undefined) continue;
    changes.push({
      model,
      kind: 'removed',
      line: `- \`${model}\` removed (was ${figures(row)} USD per million tokens, checked ${row.checked_at})`,
    });
  }
  return changes;
}

/** The changeset of a price release: `@switchboard/prices` alone, a patch, every change listed. */
export function priceChangeset(changes) {
  return `---\n'@switchboard/prices': patch\n---\n\nPrice table changes:\n\n${changes.map((change) => change.line).join('\n')}\n`;
}

/** Whether a changeset's text releases `@switchboard/prices`. */
export function releasesPrices(text) {
  const front = /^---\n([\s\S]*?)\n---/.exec(text)?.[1] ?? '';
  return /^\s*['"]?@switchboard\/prices['"]?\s*:/m.test(front);
}

/** The changes none of the changesets that release `@switchboard/prices` lists word for word. */
export function unlistedChanges(changes, changesetTexts) {
  const releasing = changesetTexts.filter(releasesPrices);
  return changes.filter((change) => !releasing.some((text) => text.includes(change.line)));
}
