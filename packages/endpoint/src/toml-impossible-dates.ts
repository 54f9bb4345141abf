/** A date written in a TOML text that no calendar has, and the day a TOML parser rolls it over to. */
export interface ImpossibleDate {
  /** As written, e.g. `2026-02-30`. */
  readonly text: string;
  /** Where it starts (1-based). */
  readonly line: number;
  readonly column: number;
  /** The day `Date` makes of it (`2026-03-02`): what smol-toml hands back, with no sign of the change. */
  readonly rolledTo: string;
}

const DATE = /(\d{4})-(\d{2})-(\d{2})/y;
// Characters of a bare key or of a number, date or time token: a date is never part of a longer one.
const TOKEN_CHAR = /[A-Za-z0-9_.:+-]/;
// What may follow a date: the end, a space or the time (`T`, or a space then the time), a separator.
const AFTER_DATE = /[\s,\]}#Tt]/;

/**
 * The dates (values written `YYYY-MM-DD`, alone or opening a date-time) in a TOML text that
 * do not exist, such as `2026-02-30` or `2026-04-31`. smol-toml reads them as `Date`s, which roll
 * them over to the next month (March 2, May 1) silently; this finds them in the text, outside
 * comments and strings, as `--since` checks a date: by building it and reading it back.
 */
export function impossibleTomlDates(text: string): ImpossibleDate[] {
  const found: ImpossibleDate[] = [];
  let line = 1;
  let lineStart = 0;
  let index = 0;
  // In a table header (`[a.b]`, `[[a]]`) to the end of its line: keys only, never a date.
  let inHeader = false;
  // Arrays and inline tables open in a value: a `[` inside one is an array, never a header.
  let depth = 0;
  const skipTo = (end: number) => {
    for (let at = index; at < end; at += 1) {
      if (text.charCodeAt(at) === 10) {
        line += 1;
        lineStart = at + 1;
      }
    }
    index = end;
  };
  while (index < text.length) {
    const char = text[index] as string;
    if (char === '\n') inHeader = false;
    if (char === '[' && depth === 0 && text.slice(lineStart, index).trim() === '') {
      inHeader = true;
      skipTo(index + 1);
    } else if (char === '[' || char === '{') {
      if (!inHeader) depth += 1;
      skipTo(index + 1);
    } else if (char === ']' || char === '}') {
      if (!inHeader && depth > 0) depth -= 1;
      skipTo(index + 1);
    } else if (char === '#') {
      const end = text.indexOf('\n', index);
      skipTo(end === -1 ? text.length : end);
    } else if (char === '"' || char === "'") {
      skipTo(stringEnd(text, index, char));
    } else if (TOKEN_CHAR.test(char)) {
      let end = index;
      while (end < text.length && TOKEN_CHAR.test(text[end] as string)) end += 1;
      DATE.lastIndex = index;
      const match = DATE.exec(text);
      const next = text[index + 10];
      // A bare key (`2026-02-30 = 1`, `2026-02-30.x = 1`) is a name, not a date.
      const isKey = inHeader || /^[ \t]*[=.]/.test(text.slice(end, end + 64));
      if (match !== null && !isKey && (next === undefined || AFTER_DATE.test(next))) {
        const rolledTo = rolledOver(match);
        if (rolledTo !== null) {
          found.push({ text: match[0], line, column: index - lineStart + 1, rolledTo });
        }
      }
      skipTo(Math.max(end, index + 1));
    } else {
      skipTo(index + 1);
    }
  }
  return found;
}

/** The day a date that does not exist rolls over to, or null when it exists. */
function rolledOver(match: RegExpExecArray): string | null {
  const [year, month, day] = [match[1], match[2], match[3]].map(Number) as [number, number, number];
  // setUTCFullYear, not Date.UTC: the latter takes a year below 100 as 19xx.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  if (date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day) {
    return null;
  }
  return date.toISOString().slice(0, 10);
}

/** The index just past the string opening at `start` (basic or literal, one line or three quotes). */
function stringEnd(text: string, start: number, quote: string): number {
  const triple = text.startsWith(quote.repeat(3), start);
  let index = start + (triple ? 3 : 1);
  while (index < text.length) {
    const char = text[index];
    if (quote === '"' && char === '\\') {
      index += 2;
      continue;
    }
    if (!triple && char === '\n') return index;
    if (char === quote && (!triple || text.startsWith(quote.repeat(3), index))) {
      if (!triple) return index + 1;
      // A closing run may hold one or two quotes of the content before the three that close it.
      let end = index + 3;
      while (end < text.length && text[end] === quote && end < index + 5) end += 1;
      return end;
    }
    index += 1;
  }
  return text.length;
}
