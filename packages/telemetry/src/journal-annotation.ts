import { describeError } from './describe-error.js';

/** An annotation as a journal line keeps it: its JSON, or why it was left out. */
export interface JournalAnnotation {
  /** The annotation's JSON text. */
  readonly json?: string;
  /** Why the annotation was left out, e.g. `annotate threw: TypeError: ...`. */
  readonly error?: string;
}

/**
 * Runs `annotate` and makes its JSON, at most `maxBytes` long: undefined when
 * it gave nothing, else the JSON or why there is none. Never throws.
 */
export function annotationJson(
  annotate: () => Record<string, unknown> | undefined,
  maxBytes: number,
): JournalAnnotation | undefined {
  let json: string | undefined;
  try {
    const extra = annotate();
    if (extra === undefined) return undefined;
    json = JSON.stringify(extra);
  } catch (error) {
    return { error: `annotate failed: ${describeError(error)}` };
  }
  if (json === undefined) return { error: 'annotate gave a value JSON cannot hold' };
  const bytes = Buffer.byteLength(json);
  if (bytes > maxBytes) return { error: `the annotation is ${bytes} bytes, over the cap of ${maxBytes}` };
  return { json };
}
