import type { ChatClient } from '@switchboard/adapter';
import { SCRIPTED_FLAGS, scriptedClient } from '@switchboard/scripted';
import { ChatEndpoint } from './chat-endpoint.js';
import { type Environment, readVariable } from './environment.js';
import type { ResolvedChatEndpoint } from './resolved-chat-endpoint.js';
import type { RuleStep } from './rule-step.js';

/** The environment variable whose lowercased, trimmed value selects a scripted client. */
export const SCRIPTED_FLAG_ENV = 'SWITCHBOARD_CLIENT';

function scriptedEndpoint(): ChatEndpoint {
  return new ChatEndpoint({ provider: 'scripted', baseUrl: '', thinking: false, prices: null });
}

/** Rule 1: the caller's own client, unwrapped. */
export function overrideStep(override: ChatClient | null | undefined): RuleStep {
  if (override === undefined || override === null) {
    return { rule: 'override', outcome: 'skipped', reason: 'no override client was given' };
  }
  if (typeof override.complete !== 'function') {
    throw new TypeError('override must be a chat client with a complete(request) method');
  }
  const resolved: ResolvedChatEndpoint = { rule: 'override', client: override, endpoint: scriptedEndpoint() };
  return {
    rule: 'override',
    outcome: 'resolved',
    reason: 'an override client was given',
    resolved,
    warnings: [],
  };
}

/** Rule 2: a scripted client when `SWITCHBOARD_CLIENT` is a scripted flag; a warning when it is another value. */
export function scriptedStep(environment: Environment): RuleStep {
  const flag = readVariable(environment, SCRIPTED_FLAG_ENV)?.toLowerCase();
  if (flag === undefined) {
    return { rule: 'scripted', outcome: 'skipped', reason: `${SCRIPTED_FLAG_ENV} is unset or blank` };
  }
  if (!SCRIPTED_FLAGS.has(flag)) {
    const accepted = [...SCRIPTED_FLAGS].join(', ');
    // A typo here must not pass unnoticed: the next rules may call a live provider.
    return {
      rule: 'scripted',
      outcome: 'skipped',
      warns: true,
      reason: `${SCRIPTED_FLAG_ENV}=${JSON.stringify(flag.slice(0, 40))} is not a scripted flag (accepted: ${accepted})`,
    };
  }
  const resolved: ResolvedChatEndpoint = {
    rule: 'scripted',
    client: scriptedClient(flag),
    endpoint: scriptedEndpoint(),
  };
  return {
    rule: 'scripted',
    outcome: 'resolved',
    reason: `${SCRIPTED_FLAG_ENV}=${flag}`,
    resolved,
    warnings: [],
  };
}
