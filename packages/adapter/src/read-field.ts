/** True for an object that is neither null nor an array: the shape of a JSON object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads one field of a value that came off the wire or from a caller, without
 * ever throwing: a non-object or a throwing getter reads as undefined.
 */
export function readField(value: unknown, key: string): unknown {
  try {
    return isRecord(value) ? value[key] : undefined;
  } catch {
    return undefined;
  }
}

/** A field that is a string, else undefined. */
export function readString(value: unknown, key: string): string | undefined {
  const field = readField(value, key);
  return typeof field === 'string' ? field : undefined;
}

/** A field that is an array, as a plain copy of its items; else an empty list. */
export function readArray(value: unknown, key: string): unknown[] {
  try {
    const field = readField(value, key);
    return Array.isArray(field) ? Array.from(field) : [];
  } catch {
    return [];
  }
}
