// C0 and C1 controls, DEL, the line and paragraph separators and every bidirectional control (Unicode's
// Bidi_Control: the embeddings, overrides and isolates, and the marks U+200E, U+200F and U+061C): each can
// move the cursor, clear the screen, forge table rows or reorder what the reader sees.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\p{Bidi_Control}]/gu;

/**
 * Text from a journal made safe to print on one line: every control character
 * (newlines and tabs too) shows as a visible escape (`\n`, `\u001b`).
 */
export function printable(text: string): string {
  return text.replace(UNSAFE, (character) =>
    character === '\n'
      ? '\\n'
      : character === '\t'
        ? '\\t'
        : `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** An exact nine-place decimal of USD as reports print it: `$1,234.500000000`. */
export function usdText(decimal: string): string {
  const [dollars = '0', nanos = '000000000'] = decimal.split('.');
  return `$${dollars.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${nanos}`;
}

/** A whole number with thousands separators. */
export function countText(count: number): string {
  return count.toLocaleString('en-US');
}

/** `1 call`, `2 calls`. */
export function plural(count: number, noun: string): string {
  return `${countText(count)} ${noun}${count === 1 ? '' : 's'}`;
}

/** A ratio as a percentage with one decimal, or `-`. */
export function percentText(ratio: number | null): string {
  return ratio === null || !Number.isFinite(ratio) ? '-' : `${(ratio * 100).toFixed(1)}%`;
}

/** Options of {@link boxTable}. */
export interface BoxTableOptions {
  /** Columns right-aligned (numbers). */
  readonly rightAligned: readonly number[];
  /**
   * Most characters the table may be wide: a first column that does not fit wraps at its
   * spaces. It is never narrower than its longest word (up to 40 characters), so a wide
   * table may pass the width rather than cut an address to `http:…`.
   */
  readonly width: number;
  /** Header in bold. */
  readonly color: boolean;
}

/** The first column is never cut narrower than its longest word, up to this many characters. */
const MAX_WORD_WIDTH = 40;
/** Lines a first-column cell may wrap onto; the last one of a longer cell ends in `…`. */
const MAX_CELL_LINES = 3;

/** Rows as a boxed table: a rule under the header, none between rows. */
export function boxTable(
  head: readonly string[],
  rows: readonly (readonly string[])[],
  options: BoxTableOptions,
): string {
  const widths = head.map((title) => title.length);
  let longestWord = 0;
  for (const row of rows) {
    for (let column = 0; column < widths.length; column++)
      widths[column] = Math.max(widths[column] ?? 0, (row[column] ?? '').length);
    for (const word of (row[0] ?? '').split(' ')) longestWord = Math.max(longestWord, word.length);
  }
  let others = 1;
  for (let column = 1; column < widths.length; column++) others += (widths[column] ?? 0) + 3;
  const floor = Math.min(widths[0] ?? 0, Math.max(12, Math.min(longestWord, MAX_WORD_WIDTH)));
  widths[0] = Math.max(Math.min(widths[0] ?? 0, options.width - others - 4), floor);
  const rule = (left: string, middle: string, right: string) =>
    `${left}${widths.map((width) => '─'.repeat(width + 2)).join(middle)}${right}`;
  const line = (cells: readonly string[], bold: boolean) =>
    `│${widths
      .map((width, column) => {
        const cell = fit(cells[column] ?? '', width);
        const padded = options.rightAligned.includes(column) ? cell.padStart(width) : cell.padEnd(width);
        return ` ${bold && options.color ? `\u001b[1m${padded}\u001b[22m` : padded} `;
      })
      .join('│')}│`;
  // A row whose first cell wraps goes on over more lines, its other cells blank there.
  const rowLines = (row: readonly string[]) =>
    wrap(row[0] ?? '', widths[0] ?? 0).map((first, index) =>
      line(index === 0 ? [first, ...row.slice(1)] : [first], false),
    );
  return [
    rule('┌', '┬', '┐'),
    line(head, true),
    rule('├', '┼', '┤'),
    ...rows.flatMap(rowLines),
    rule('└', '┴', '┘'),
  ].join('\n');
}

function fit(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`;
}

/** `text` in lines of at most `width`, broken at spaces (a longer word is cut with `…`), at most {@link MAX_CELL_LINES}. */
function wrap(text: string, width: number): string[] {
  if (text.length <= width) return [text];
  const lines: string[] = [];
  for (const word of text.split(' ')) {
    const last = lines.at(-1);
    if (last !== undefined && last.length + 1 + word.length <= width)
      lines[lines.length - 1] = `${last} ${word}`;
    else lines.push(word);
  }
  if (lines.length <= MAX_CELL_LINES) return lines;
  const kept = lines.slice(0, MAX_CELL_LINES);
  kept[MAX_CELL_LINES - 1] = fit(`${kept[MAX_CELL_LINES - 1]}…`, width);
  return kept;
}

/** A time bucket's label: HH:MM under an hour, MM-DD HH under a day, else its date. */
export function bucketLabel(start: string, bucketMs: number): string {
  if (bucketMs < 3_600_000) return start.slice(11, 16);
  if (bucketMs < 86_400_000) return start.slice(5, 13).replace('T', ' ');
  return start.slice(0, 10);
}
