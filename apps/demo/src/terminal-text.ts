// C0 controls but tab and newline, DEL, C1 controls (0x9b is a one-byte CSI), the line and paragraph
// separators and every bidirectional control (Unicode's Bidi_Control: the embeddings, overrides and
// isolates, and the marks U+200E, U+200F and U+061C): each can move the cursor, clear the screen, write
// the clipboard (OSC 52) or reorder what the reader sees.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\p{Bidi_Control}]/gu;

function escaped(character: string): string {
  return `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * Text from a server (content, reasoning, model ids, error messages) made safe
 * to print: every control character shows as a visible `\uXXXX` escape instead
 * of reaching the terminal raw. Tabs and newlines stay.
 */
export function safeText(text: string): string {
  return text.replace(UNSAFE, escaped);
}

/** A value as JSON on one line (an NDJSON line, newline included), made safe as {@link safeJson} is. */
export function safeJsonLine(value: unknown): string {
  return `${JSON.stringify(value).replace(UNSAFE, escaped)}\n`;
}

/**
 * A value as indented JSON that is safe to print: JSON.stringify already
 * escapes C0 controls; this also escapes DEL, C1 controls and the other
 * characters {@link safeText} neutralises. The result is still valid JSON.
 */
export function safeJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2).replace(UNSAFE, escaped)}\n`;
}
