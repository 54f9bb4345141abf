import { inspect } from 'node:util';

const REDACTED = '***';

/** The text with every occurrence of the key replaced; the text itself when the key is empty. */
export function redact(text: string, apiKey: string): string {
  return apiKey === '' ? text : text.split(apiKey).join(REDACTED);
}

/**
 * The error itself when no inspected form of it mentions the key, else a plain
 * stand-in with the same name and a redacted message and stack (contract:
 * no `cause` chain may contain the key).
 */
export function redactError(error: unknown, apiKey: string): unknown {
  if (apiKey === '') return error;
  let inspected: string;
  try {
    // Every level and getter: a key may sit deep in a cause chain or a field of a wrapped error.
    inspected = inspect(error, { depth: Number.POSITIVE_INFINITY, showHidden: true, getters: true });
  } catch {
    inspected = apiKey;
  }
  if (!inspected.includes(apiKey)) return error;
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
