/** Leaf values of a JSON value by path (`messages[2].content`); an empty object or array is a leaf. */
function leaves(value: unknown, path: string, into: Map<string, unknown>): Map<string, unknown> {
  if (Array.isArray(value) && value.length > 0) {
    value.forEach((item, index) => {
      leaves(item, `${path}[${index}]`, into);
    });
  } else if (typeof value === 'object' && value !== null && Object.keys(value).length > 0) {
    for (const [key, field] of Object.entries(value))
      leaves(field, path === '' ? key : `${path}.${key}`, into);
  } else {
    into.set(path === '' ? '(the whole value)' : path, value);
  }
  return into;
}

/** One difference between two JSON values: where, what it was and what it is (undefined: absent). */
export interface JsonDifference {
  readonly path: string;
  readonly before: unknown;
  readonly after: unknown;
}

/** Every leaf that differs between `before` and `after`, in path order. */
export function jsonDifferences(before: unknown, after: unknown): JsonDifference[] {
  const left = leaves(before, '', new Map());
  const right = leaves(after, '', new Map());
  const paths = [...new Set([...left.keys(), ...right.keys()])].sort();
  const differences: JsonDifference[] = [];
  for (const path of paths) {
    const a = left.get(path);
    const b = right.get(path);
    if (JSON.stringify(a) !== JSON.stringify(b)) differences.push({ path, before: a, after: b });
  }
  return differences;
}

const SHOWN_CHARACTERS = 80;

/** A value as a difference shows it: JSON, cut to 80 characters, or `absent`. */
function shownValue(value: unknown): string {
  if (value === undefined) return 'absent';
  const text = JSON.stringify(value);
  return text.length > SHOWN_CHARACTERS ? `${text.slice(0, SHOWN_CHARACTERS - 1)}…` : text;
}

/** `path: recorded X, now Y`. */
export function describeDifference(difference: JsonDifference, labels = ['recorded', 'now']): string {
  return `${difference.path}: ${labels[0]} ${shownValue(difference.before)}, ${labels[1]} ${shownValue(difference.after)}`;
}
