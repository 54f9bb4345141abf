/** `choices[0].message` of a reply payload with the choice's logprobs merged in, else `{}`. */
export function messageOf(reply: unknown): Record<string, unknown> {
  const choice = (reply as { choices?: unknown[] } | null)?.choices?.[0] as
    | Record<string, unknown>
    | undefined;
  const message = choice?.message;
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return {};
  const merged: Record<string, unknown> = { ...(message as Record<string, unknown>) };
  if (choice?.logprobs !== undefined && choice.logprobs !== null) merged.logprobs = choice.logprobs;
  if (typeof choice?.finish_reason === 'string') merged.finish_reason = choice.finish_reason;
  return merged;
}
