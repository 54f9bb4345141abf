/**
 * Whether a text holds a control character (C0, DEL, C1) or a line or paragraph
 * separator: none has a place in a name shown on a terminal or kept in a header.
 */
export function hasControlCharacter(text: string): boolean {
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029) return true;
  }
  return false;
}
