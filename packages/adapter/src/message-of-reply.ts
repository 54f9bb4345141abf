import { isRecord, readArray, readField } from './read-field.js';

/**
 * `choices[0].message` of a whole reply, with the choice's `logprobs` and
 * `finish_reason` merged in: providers put them beside the message, not inside
 * it. `{}` when the reply has no such message; never throws.
 */
export function messageOfReply(reply: unknown): Record<string, unknown> {
  try {
    const choice = readArray(reply, 'choices')[0];
    const message = readField(choice, 'message');
    if (!isRecord(message)) return {};
    const merged: Record<string, unknown> = { ...message };
    const logprobs = readField(choice, 'logprobs');
    if (logprobs !== undefined && logprobs !== null) merged.logprobs = logprobs;
    const finishReason = readField(choice, 'finish_reason');
    if (typeof finishReason === 'string') merged.finish_reason = finishReason;
    return merged;
  } catch {
    return {};
  }
}
