import type { ChatClient } from '@switchboard/adapter';
import { configuredStep, gatewayStep, primaryStep } from './adapter-rules.js';
import { ConfigError } from './config-error.js';
import { parseConfig } from './parse-config.js';
import type { ResolveChatEndpointOptions } from './resolve-chat-endpoint-options.js';
import { checkResolveOptions } from './resolve-options-keys.js';
import type { RuleContext, RuleStep } from './rule-step.js';
import { overrideStep, scriptedStep } from './scripted-rules.js';
import type { SwitchboardConfig } from './switchboard-config.js';

function* steps(
  config: unknown,
  context: RuleContext,
  override: ChatClient | undefined,
): Generator<RuleStep> {
  yield overrideStep(override);
  yield scriptedStep(context.environment);
  // Rules 1 and 2 need no configuration; every later rule reads it, so it is checked here.
  let parsed: SwitchboardConfig;
  try {
    parsed = parseConfig(config);
  } catch (error) {
    if (!ConfigError.isInstance(error)) throw error;
    yield { rule: 'configured', outcome: 'refused', reason: error.message, error };
    return;
  }
  yield configuredStep(parsed, context);
  yield primaryStep(parsed, context);
  yield gatewayStep(parsed, context);
}

/**
 * The resolution rules tried in order, up to and including the first that did not
 * skip: the one account of resolution that `resolveChatEndpoint` acts on and
 * `explainResolution` reports. Reads the environment with `readVariable`, like the rules.
 */
export function resolutionSteps(
  config: SwitchboardConfig | undefined,
  options: ResolveChatEndpointOptions | null | undefined,
): RuleStep[] {
  // A JavaScript caller's `null` means no options, like `undefined`.
  const given = options ?? {};
  if (typeof given !== 'object') throw new TypeError('resolveChatEndpoint options must be an object');
  checkResolveOptions(given);
  const context: RuleContext = { environment: given.env ?? process.env, options: given };
  const tried: RuleStep[] = [];
  for (const step of steps(config === undefined ? {} : config, context, given.override)) {
    tried.push(step);
    if (step.outcome !== 'skipped') break;
  }
  return tried;
}
