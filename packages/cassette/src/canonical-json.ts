import { createHash } from 'node:crypto';

/**
 * A deep copy of a JSON value with every object's keys in sorted order (arrays
 * keep theirs), and what JSON would drop (undefined, functions, symbols) dropped.
 * Objects are made without a prototype, so a `__proto__` key stays a plain key.
 */
export function sortedCopy(value: unknown): unknown {
  const text = JSON.stringify(value);
  if (text === undefined) return null;
  return sortKeys(JSON.parse(text) as unknown);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  const copy: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(value).sort()) copy[key] = sortKeys((value as Record<string, unknown>)[key]);
  return copy;
}

/** The canonical text of a JSON value: keys sorted at every level, no whitespace between tokens. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortedCopy(value));
}

/**
 * The match hash of a normalised request: the first 16 hex digits of the SHA-256
 * of its canonical JSON. Key order and formatting do not change it; any value does.
 */
export function requestHash(request: unknown): string {
  return createHash('sha256').update(canonicalJson(request)).digest('hex').slice(0, 16);
}
