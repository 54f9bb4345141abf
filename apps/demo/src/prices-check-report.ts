import { renderTable } from './format.js';
import type { Io } from './io.js';
import type { PriceCheck } from './prices-check-compare.js';
import type { TableUpdate } from './prices-check-write.js';
import { safeJson, safeText } from './terminal-text.js';

/** Where the listing came from and when it was read, for the report. */
export interface CheckContext {
  /** The listing's address, without credentials or query. */
  readonly listing: string;
  readonly at: Date;
  /** What `--write` did, or null without it. */
  readonly written: TableUpdate | null;
}

/** The exit code of a check: 2 when it cannot vouch for a price it should, 1 when any differs, else 0. */
export function checkExitCode(check: PriceCheck): 0 | 1 | 2 {
  if (check.unreadable.length > 0) return 2;
  return check.differences.length > 0 || check.ambiguous.length > 0 ? 1 : 0;
}

/** `prices check --json`: one document with every finding. */
export function printCheckJson(io: Io, check: PriceCheck, context: CheckContext): void {
  io.stdout(
    safeJson({
      listing: context.listing,
      at: context.at.toISOString(),
      unit: 'USD per million tokens',
      agree: checkExitCode(check) === 0,
      ...check,
      written: context.written,
    }),
  );
}

const list = (items: readonly string[]): string => items.map(safeText).join(', ');

/** `prices check`: the differences as a table, then what one side has and the other lacks. */
export function printCheckText(io: Io, check: PriceCheck, context: CheckContext): void {
  const listing = safeText(context.listing);
  if (check.differences.length > 0) {
    const rows = check.differences.map((difference) => [
      safeText(difference.model),
      safeText(difference.field),
      safeText(difference.ours ?? 'none'),
      safeText(difference.theirs ?? 'none'),
      safeText(
        `${difference.origin}${difference.checkedAt ? `, checked ${difference.checkedAt}` : ', undated'}`,
      ),
      safeText(difference.source ?? '-'),
    ]);
    io.stdout(
      `${renderTable(['model', 'price', 'ours /M', 'listed /M', 'our entry', 'our source'], rows, { color: io.color })}\n`,
    );
  }
  for (const { model, listedIds } of check.ambiguous) {
    io.stdout(
      `${safeText(model)}: listed as ${list(listedIds)}, which one is ours cannot be told; not compared\n`,
    );
  }
  for (const problem of check.unreadable) io.stdout(`cannot read the listed price of ${safeText(problem)}\n`);
  if (check.theirsWeLack.length > 0) {
    io.stdout(`listed, not priced here (${check.theirsWeLack.length}): ${list(check.theirsWeLack)}\n`);
  }
  if (check.oursTheyLack.length > 0) {
    const ours = check.oursTheyLack.map(({ model, origin }) => `${model} (${origin})`);
    io.stdout(`priced here, not listed (${ours.length}): ${list(ours)}\n`);
  }
  if (check.unlisted.length > 0) io.stdout(`not in the listing, so not checked: ${list(check.unlisted)}\n`);
  const differ = check.differences.length;
  const outcome =
    checkExitCode(check) === 0
      ? 'every price both sides hold agrees'
      : `${differ} ${differ === 1 ? 'price differs' : 'prices differ'}${check.unreadable.length > 0 ? `, ${check.unreadable.length} listed ${check.unreadable.length === 1 ? 'price' : 'prices'} of ours unreadable` : ''}`;
  const written = context.written;
  if (written !== null) {
    if (written.updated.length > 0) {
      io.stdout(
        `written: ${list(written.updated)} in packages/prices/src/price-table.json, and ${safeText(written.changeset ?? '')}\n`,
      );
    }
    for (const line of written.skipped) io.stdout(`not written: ${safeText(line)}\n`);
  }
  io.stdout(`${check.compared} prices compared with ${listing} (USD per million tokens): ${outcome}\n`);
}
