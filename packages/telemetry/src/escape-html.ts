import { printable } from './report-text.js';

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text (from a journal, say) made safe inside HTML text and attribute values; control characters escaped too. */
export function escapeHtml(text: string): string {
  return printable(text).replace(/[&<>"']/g, (character) => ENTITIES[character] ?? character);
}
