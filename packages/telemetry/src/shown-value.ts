/** A value as a message names its kind: `null`, `an array`, `an object`, `a string ("…")`, `the number -1`. */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return `a string (${shown(value)})`;
  return `${typeof value === 'number' ? 'the number' : typeof value} ${shown(value)}`;
}

/**
 * A value as a message quotes it: short, one line (JSON escapes newlines and controls).
 * Objects and arrays are named, never converted: a parsed line's {"toString": []} must not throw.
 */
export function shown(value: unknown): string {
  const text =
    typeof value === 'string'
      ? JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)
      : typeof value === 'number' || typeof value === 'boolean'
        ? String(value)
        : typeof value === 'bigint'
          ? `${value}n`
          : value === null
            ? 'null'
            : Array.isArray(value)
              ? 'an array'
              : typeof value === 'object'
                ? 'an object'
                : typeof value;
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}
