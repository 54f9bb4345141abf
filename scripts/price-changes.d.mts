// Types of price-changes.mjs, for the TypeScript files that import it.

/** A price table as price-table.json holds it (only what the changes read). */
export interface PriceTableData {
  readonly models: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

/** One model's change between two tables, with its CHANGELOG line. */
export interface PriceChange {
  readonly model: string;
  readonly kind: 'added' | 'removed' | 'changed' | 'rechecked';
  readonly line: string;
}

export function priceChanges(before: PriceTableData | null, after: PriceTableData | null): PriceChange[];
export function priceChangeset(changes: readonly PriceChange[]): string;
export function releasesPrices(text: string): boolean;
export function unlistedChanges(
  changes: readonly PriceChange[],
  changesetTexts: readonly string[],
): PriceChange[];
