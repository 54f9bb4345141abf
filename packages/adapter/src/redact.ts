import { inspect } from 'node:util';

const REDACTED = '***';

/**
 * Below this length a key is not redacted at all: a key as short as `k` or `key` is a letter or
 * a word of every message, and replacing it would garble them (`thin***ing`, `the API *** is
 * invalid`) while hiding nothing. Such a key is not kept out of messages.
 */
export const MIN_REDACTED_KEY_LENGTH = 8;

/**
 * From this length on, every occurrence of the key is redacted, even inside a longer run of
 * letters and digits (`Bearer%20<key>` in an encoded address): a key this long does not
 * occur in text by chance. A shorter key is redacted where it stands as a whole token.
 */
export const ANYWHERE_KEY_LENGTH = 20;

/**
 * The forms of a key that may show up in text: as given, trimmed (a key read from a file keeps
 * its newline, but the header, and so an echo of it, does not), and each of those escaped as
 * JSON and `util.inspect` write a string (a key with a pasted CRLF inside shows as `\r\n`).
 */
function keyForms(apiKey: string): string[] {
  const trimmed = apiKey.trim();
  if (trimmed === '') return [];
  const forms = new Set([apiKey, trimmed]);
  for (const form of [...forms]) forms.add(JSON.stringify(form).slice(1, -1));
  return [...forms];
}

/** Text with every run of whitespace removed. */
function compact(text: string): string {
  return text.replace(/\s+/g, '');
}

/**
 * The pattern of the places the key can stand in a text, or null when there is none (an
 * empty key, or one shorter than {@link MIN_REDACTED_KEY_LENGTH}): each form of the key at
 * least that long, a shorter one (under {@link ANYWHERE_KEY_LENGTH}) only as a whole token,
 * neither preceded nor followed by a letter or digit. The longest form first.
 */
function keyPattern(apiKey: string): RegExp | null {
  return patternOf(keyForms(apiKey));
}

/** {@link keyPattern} of the given forms. */
function patternOf(keyForms: readonly string[]): RegExp | null {
  const forms = keyForms
    .filter((form) => form.length >= MIN_REDACTED_KEY_LENGTH)
    .sort((a, b) => b.length - a.length);
  if (forms.length === 0) return null;
  return new RegExp(
    forms
      .map((form) => {
        const literal = form.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
        return form.length >= ANYWHERE_KEY_LENGTH
          ? literal
          : `(?<![\\p{L}\\p{N}])${literal}(?![\\p{L}\\p{N}])`;
      })
      .join('|'),
    'gu',
  );
}

/** Whether the text shows the key where {@link redact} would replace it. */
function showsKey(text: string, pattern: RegExp): boolean {
  return pattern.test(text);
}

/**
 * The text with every place the key (or the key trimmed) stands replaced by `***`; the text
 * itself when the key is empty or shorter than {@link MIN_REDACTED_KEY_LENGTH}. A key under
 * {@link ANYWHERE_KEY_LENGTH} characters is replaced only as a whole token, so a key that is
 * also a word (`password1`) leaves the longer words that contain it alone.
 */
export function redact(text: string, apiKey: string): string {
  const pattern = keyPattern(apiKey);
  if (pattern === null) return text;
  return text.replace(pattern, REDACTED);
}

/**
 * The error itself when no inspected form of it mentions the key, else a plain
 * stand-in with the same name and a redacted message and stack (contract:
 * no `cause` chain may contain the key).
 */
export function redactError(error: unknown, apiKey: string): unknown {
  const pattern = keyPattern(apiKey);
  if (pattern === null) return error;
  let inspected: string;
  try {
    // Every level and getter: a key may sit deep in a cause chain or a field of a wrapped error.
    inspected = inspect(error, { depth: Number.POSITIVE_INFINITY, showHidden: true, getters: true });
  } catch {
    inspected = apiKey;
  }
  // A key with a line break inside shows split when an error nested in a cause chain is inspected:
  // util.inspect indents every line of its stack. Compared without whitespace, it shows whole.
  const split = /[\r\n]/.test(apiKey.trim()) ? patternOf(keyForms(apiKey).map(compact)) : null;
  if (!showsKey(inspected, pattern) && !(split !== null && showsKey(compact(inspected), split))) return error;
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
