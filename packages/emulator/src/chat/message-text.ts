/**
 * The text of a message's `content`: a string as is, the `text` of each text
 * part of a content array joined by newlines, and '' for anything else.
 */
export function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) =>
      part !== null && typeof part === 'object' && typeof (part as { text?: unknown }).text === 'string'
        ? (part as { text: string }).text
        : '',
    )
    .filter((text) => text !== '')
    .join('\n');
}
