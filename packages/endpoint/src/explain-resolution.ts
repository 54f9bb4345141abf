import { resolutionSteps } from './resolution-steps.js';
import type { ResolveChatEndpointOptions } from './resolve-chat-endpoint-options.js';
import type { ResolutionRule } from './resolved-chat-endpoint.js';
import type { SwitchboardConfig } from './switchboard-config.js';

/** One rule tried by `resolveChatEndpoint`, and what came of it. */
export interface RuleExplanation {
  /** The rule. */
  readonly rule: ResolutionRule;
  /**
   * `skipped`: it did not apply and the next rule was tried; `resolved`: it picked the endpoint;
   * `refused`: resolution throws a `ConfigError`; `failed`: rule 6 could not build its client (null).
   */
  readonly outcome: 'skipped' | 'resolved' | 'refused' | 'failed';
  /** Why, in words, e.g. `GATEWAY_API_KEY is unset or blank`. Never a key. */
  readonly reason: string;
}

/** What `resolveChatEndpoint` does with a configuration and environment, and why. */
export interface ResolutionExplanation {
  /** The rule that resolves, or null when resolution gives null or throws. */
  readonly rule: ResolutionRule | null;
  /** The rules tried, in order, up to the one that did not skip. */
  readonly steps: readonly RuleExplanation[];
  /**
   * Worth telling the user even when a rule resolves: an unrecognised `SWITCHBOARD_CLIENT`
   * value (naming the accepted flags), a named key variable that is unset.
   */
  readonly warnings: readonly string[];
  /** One line: which rule resolved, or why nothing did (starting `no chat endpoint: `), or the `ConfigError`'s message. */
  readonly message: string;
}

const NOTHING_SET =
  'set PRIMARY_API_KEY or GATEWAY_API_KEY, name an endpoint in the config (models.chat_base_url), or set SWITCHBOARD_CLIENT=scripted';

/**
 * Explains `resolveChatEndpoint(config, options)` without calling anything: which rule
 * was tried and why it did not apply, read the same way the rules read (an empty or blank
 * variable is unset). Never throws a `ConfigError`: a refusal is reported as a step.
 *
 * @throws {TypeError} for an `override` that is not a chat client, as `resolveChatEndpoint` does.
 */
export function explainResolution(
  config: SwitchboardConfig = {},
  options: ResolveChatEndpointOptions = {},
): ResolutionExplanation {
  const tried = resolutionSteps(config, options);
  const steps = tried.map(({ rule, outcome, reason }) => ({ rule, outcome, reason }));
  const last = tried.at(-1);
  const warnings = [
    // An unrecognised flag value is the reason its rule was skipped; it matters whatever resolves next.
    ...tried.flatMap((step) => (step.outcome === 'skipped' && step.warns ? [step.reason] : [])),
    ...(last?.outcome === 'resolved' ? last.warnings : []),
  ];
  if (last?.outcome === 'resolved') {
    return { rule: last.rule, steps, warnings, message: `rule ${last.rule}: ${last.reason}` };
  }
  if (last?.outcome === 'refused') return { rule: null, steps, warnings, message: last.reason };
  const why = last?.outcome === 'failed' ? last.reason : [NOTHING_SET, ...warnings].join('; ');
  return { rule: null, steps, warnings, message: `no chat endpoint: ${why}` };
}
