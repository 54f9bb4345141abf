import { type ChatAdapter, ChatError } from '@switchboard/adapter';
import { formatUsd } from '../format.js';
import { type RoleOutcome, SYSTEM_PROMPT, TOOL_RESULT } from './demo-roles.js';

/** The role whose budget the demo runs out, and the most calls it tries. */
export const BUDGETED_ROLE = 'triage';
const MAX_CALLS = 12;
const TRIAGE_MAX_TOKENS = 32;

/**
 * Triage: short capped calls under a small role budget, one after another, until
 * the budget refuses the call that would cross it. The refusal comes before the
 * call is sent, which the emulator's request count shows.
 */
export async function runBudgeted(
  adapter: ChatAdapter,
  model: string,
  limitUsd: number,
  countRequests: () => number,
): Promise<RoleOutcome> {
  const view = adapter.forRole(BUDGETED_ROLE);
  const start = view.usage.length;
  let sent = 0;
  for (let call = 1; call <= MAX_CALLS; call++) {
    const before = countRequests();
    try {
      await view.complete({
        model,
        maxTokens: TRIAGE_MAX_TOKENS,
        messages: [
          { role: 'system', content: SYSTEM_PROMPT },
          { role: 'user', content: `Triage finding ${call}: worth a judge's time? ${TOOL_RESULT}` },
        ],
      });
      sent += 1;
    } catch (error) {
      if (!ChatError.isInstance(error) || error.kind !== 'budget') throw error;
      const requestsForRefused = countRequests() - before;
      return {
        role: BUDGETED_ROLE,
        summary: `budget ${formatUsd(limitUsd)}: ${sent} calls sent, call ${call} refused before it was sent (the emulator received ${requestsForRefused} requests for it)`,
        usage: view.usage.slice(start),
        budget: { limitUsd, refused: 1, requestsForRefused, refusal: error.message },
      };
    }
  }
  return {
    role: BUDGETED_ROLE,
    summary: `budget ${formatUsd(limitUsd)}: ${sent} calls sent, none refused`,
    usage: view.usage.slice(start),
    budget: { limitUsd, refused: 0, requestsForRefused: 0, refusal: null },
  };
}
