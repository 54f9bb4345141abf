/**
 * An error as one short line for a journal: `name: message`, its first line only, at most
 * 200 characters (then `…`). Never throws, whatever was thrown.
 */
export function describeError(error: unknown): string {
  try {
    // The first line only: a cycle's message goes on to draw the path through the object.
    const text =
      (error instanceof Error ? `${error.name}: ${error.message}` : String(error)).split('\n')[0] ?? '';
    return text.length > 200 ? `${text.slice(0, 200)}…` : text;
  } catch {
    return 'an error that cannot be described';
  }
}
