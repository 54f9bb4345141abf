import type { ProviderDetail } from './provider-detail.js';

/**
 * What a 400 adds when it refuses the `thinking` field the adapter sent: strict
 * OpenAI-compatible servers answer 400 to any argument they do not know. Names
 * the settings that stop sending it; '' when the 400 is about something else.
 */
export function thinkingRejectionHint(status: number, sentThinking: boolean, detail: ProviderDetail): string {
  if (status !== 400 || !sentThinking) return '';
  const aboutThinking = detail.param === 'thinking' || /\bthinking\b/i.test(detail.message);
  if (!aboutThinking) return '';
  return ' (this endpoint does not accept the "thinking" field, which Switchboard sends to turn reasoning off: set thinking = true under [models] in switchboard.toml (models.thinking), or pass disableThinking: false to the ChatAdapter, and it is no longer sent)';
}
