import { isRecord } from './read-field.js';
import type { UsageEntry } from './usage-entry.js';

// Deeper than any provider's usage; past it a value is kept as it is, so a hostile
// 100k-level object cannot exhaust the stack.
const MAX_DEPTH = 8;

/**
 * A frozen plain copy of a reply's `usage` (nested objects and arrays copied and
 * frozen too), faithful to the wire: a `__proto__` member stays an own data key
 * and never becomes the copy's prototype. Throwing getters read as undefined.
 */
export function copyUsage(usage: Record<string, unknown>): UsageEntry {
  return copyValue(usage, 0) as UsageEntry;
}

function copyValue(value: unknown, depth: number): unknown {
  if (depth >= MAX_DEPTH || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return Object.freeze(Array.from(value, (item) => copyValue(item, depth + 1)));
  if (!isRecord(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    let field: unknown;
    try {
      field = value[key];
    } catch {
      field = undefined;
    }
    // Assigning `__proto__` would set the prototype: that one key is defined instead
    // (defineProperty for every key would make each call's copy twice as slow).
    if (key === '__proto__') {
      Object.defineProperty(copy, key, {
        value: copyValue(field, depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else {
      copy[key] = copyValue(field, depth + 1);
    }
  }
  return Object.freeze(copy);
}
