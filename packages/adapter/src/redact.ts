import { inspect } from 'node:util';

const REDACTED = '***';

/**
 * The forms of a key that may show up in text: as given, and trimmed (a key
 * read from a file keeps its newline, but the header, and so an echo of it, does not).
 */
function keyForms(apiKey: string): string[] {
  const trimmed = apiKey.trim();
  if (trimmed === '') return [];
  return trimmed === apiKey ? [apiKey] : [apiKey, trimmed];
}

/** The text with every occurrence of the key (or the key trimmed) replaced; the text itself when the key is empty. */
export function redact(text: string, apiKey: string): string {
  let result = text;
  for (const key of keyForms(apiKey)) result = result.split(key).join(REDACTED);
  return result;
}

/**
 * The error itself when no inspected form of it mentions the key, else a plain
 * stand-in with the same name and a redacted message and stack (contract:
 * no `cause` chain may contain the key).
 */
export function redactError(error: unknown, apiKey: string): unknown {
  const keys = keyForms(apiKey);
  if (keys.length === 0) return error;
  let inspected: string;
  try {
    // Every level and getter: a key may sit deep in a cause chain or a field of a wrapped error.
    inspected = inspect(error, { depth: Number.POSITIVE_INFINITY, showHidden: true, getters: true });
  } catch {
    inspected = apiKey;
  }
  if (!keys.some((key) => inspected.includes(key))) return error;
  try {
    const original = error instanceof Error ? error : new Error(String(error));
    const standIn = new Error(redact(String(original.message), apiKey));
    standIn.name = String(original.name);
    standIn.stack = redact(String(original.stack), apiKey);
    return standIn;
  } catch {
    return new Error('an error that could not be shown without the key');
  }
}
