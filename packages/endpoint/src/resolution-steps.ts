import type { ChatClient } from '@switchboard/adapter';
import { SCRIPTED_FLAGS, scriptedClient } from '@switchboard/scripted';
import { adapterResolution } from './adapter-resolution.js';
import { ChatEndpoint } from './chat-endpoint.js';
import { checkBaseUrl } from './checked-base-url.js';
import { ConfigError } from './config-error.js';
import { type Environment, readVariable } from './environment.js';
import { insecureHttpAllowed, insecureHttpReason } from './insecure-http.js';
import { KEY_VARIABLE_RULE, keyVariableAllowed } from './key-variable.js';
import { parseConfig } from './parse-config.js';
import { PRIMARY_DEFAULT_BASE_URL } from './primary-base-url.js';
import { providerOf } from './provider-of.js';
import type { ResolveChatEndpointOptions } from './resolve-chat-endpoint-options.js';
import { modelsOfParsed } from './resolve-models.js';
import type { ResolutionRule, ResolvedChatEndpoint } from './resolved-chat-endpoint.js';
import type { SwitchboardConfig } from './switchboard-config.js';

/** The gateway's address when `GATEWAY_BASE_URL` is unset. It carries a version path (spec 9.1). */
export const GATEWAY_DEFAULT_BASE_URL = 'https://gateway.example/api/v1';

/** The environment variable whose lowercased, trimmed value selects a scripted client (spec 2.5). */
export const SCRIPTED_FLAG_ENV = 'SWITCHBOARD_CLIENT';

const PRIMARY_API_KEY = 'PRIMARY_API_KEY';

/**
 * What one rule made of the configuration and environment: `skipped` (the next rule
 * is tried), `resolved`, `refused` (a `ConfigError`: resolution throws it) or
 * `failed` (rule 6 could not build its client: resolution gives null).
 */
export type RuleStep =
  | {
      readonly rule: ResolutionRule;
      readonly outcome: 'skipped';
      readonly reason: string;
      /** The reason deserves a warning whatever resolves next (an unrecognised scripted flag). */
      readonly warns?: boolean;
    }
  | {
      readonly rule: ResolutionRule;
      readonly outcome: 'resolved';
      readonly reason: string;
      readonly resolved: ResolvedChatEndpoint;
      /** Things worth a warning although the rule resolved, e.g. a named key variable that is unset. */
      readonly warnings: readonly string[];
    }
  | {
      readonly rule: ResolutionRule;
      readonly outcome: 'refused';
      readonly reason: string;
      readonly error: ConfigError;
    }
  | { readonly rule: ResolutionRule; readonly outcome: 'failed'; readonly reason: string };

interface Context {
  readonly environment: Environment;
  readonly options: ResolveChatEndpointOptions;
}

function scriptedEndpoint(): ChatEndpoint {
  return new ChatEndpoint({ provider: 'scripted', baseUrl: '', thinking: false, prices: null });
}

function refused(rule: ResolutionRule, message: string, path: string): RuleStep {
  return { rule, outcome: 'refused', reason: message, error: new ConfigError(message, { path }) };
}

function overrideStep(override: ChatClient | null | undefined): RuleStep {
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

function scriptedStep(environment: Environment): RuleStep {
  const flag = readVariable(environment, SCRIPTED_FLAG_ENV)?.toLowerCase();
  if (flag === undefined) {
    return { rule: 'scripted', outcome: 'skipped', reason: `${SCRIPTED_FLAG_ENV} is unset or blank` };
  }
  if (!SCRIPTED_FLAGS.has(flag)) {
    const accepted = [...SCRIPTED_FLAGS].join(', ');
    // A typo here must not pass unnoticed: the next rules may call a live provider (issue 14).
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

function configuredStep(config: SwitchboardConfig, context: Context): RuleStep {
  const models = config.models ?? {};
  if (!models.chat_base_url && !models.chat_api_key_env) {
    return {
      rule: 'configured',
      outcome: 'skipped',
      reason: 'models.chat_base_url and models.chat_api_key_env are unset',
    };
  }
  const keyVariable = models.chat_api_key_env || PRIMARY_API_KEY;
  if (!keyVariableAllowed(keyVariable, context.options.allowKeyVariable)) {
    // The name is not echoed: a key pasted here by mistake must not end up in a message.
    return refused(
      'configured',
      `models.chat_api_key_env: expected ${KEY_VARIABLE_RULE}, got another name (not shown); ` +
        'code may allow it with resolveChatEndpoint(config, { allowKeyVariable })',
      'models.chat_api_key_env',
    );
  }
  const name = models.chat_base_url ? 'models.chat_base_url' : 'the primary default';
  const checked = checkBaseUrl(models.chat_base_url || PRIMARY_DEFAULT_BASE_URL, { name });
  if ('reason' in checked) return refused('configured', `${name}: ${checked.reason}`, name);
  const apiKey = readVariable(context.environment, keyVariable) ?? '';
  const insecure = apiKey === '' ? null : insecureReason(checked.address, context);
  if (insecure !== null) return refused('configured', `${name}: ${insecure}`, name);
  const thinking = models.thinking ?? false;
  const resolved = adapterResolution({
    rule: 'configured',
    provider: providerOf(checked.address),
    baseUrl: checked.address,
    apiKey,
    thinking,
    disableThinking: !thinking,
    model: modelsOfParsed(config)[0],
  });
  const warnings =
    apiKey === ''
      ? [`${keyVariable} is unset or blank: calls go without credentials and will likely fail with 401`]
      : [];
  return {
    rule: 'configured',
    outcome: 'resolved',
    reason: `${name} or models.chat_api_key_env is set: ${checked.address}, key from ${keyVariable}`,
    resolved,
    warnings,
  };
}

function primaryStep(config: SwitchboardConfig, context: Context): RuleStep {
  const apiKey = readVariable(context.environment, PRIMARY_API_KEY);
  if (apiKey === undefined)
    return { rule: 'primary', outcome: 'skipped', reason: `${PRIMARY_API_KEY} is unset or blank` };
  const name = 'PRIMARY_BASE_URL';
  const checked = checkBaseUrl(readVariable(context.environment, name) ?? PRIMARY_DEFAULT_BASE_URL, {
    name,
    primary: true,
  });
  if ('reason' in checked) return refused('primary', `${name}: ${checked.reason}`, name);
  const insecure = insecureReason(checked.address, context);
  if (insecure !== null) return refused('primary', `${name}: ${insecure}`, name);
  const thinking = config.models?.thinking ?? false;
  const resolved = adapterResolution({
    rule: 'primary',
    provider: 'primary',
    baseUrl: checked.address,
    apiKey,
    thinking,
    disableThinking: !thinking,
    model: modelsOfParsed(config)[0],
  });
  return {
    rule: 'primary',
    outcome: 'resolved',
    reason: `${PRIMARY_API_KEY} is set: ${checked.address}`,
    resolved,
    warnings: [],
  };
}

function gatewayStep(config: SwitchboardConfig, context: Context): RuleStep {
  const apiKey = readVariable(context.environment, 'GATEWAY_API_KEY');
  if (apiKey === undefined)
    return { rule: 'gateway', outcome: 'skipped', reason: 'GATEWAY_API_KEY is unset or blank' };
  const name = 'GATEWAY_BASE_URL';
  const checked = checkBaseUrl(readVariable(context.environment, name) ?? GATEWAY_DEFAULT_BASE_URL, {
    name,
    primary: false,
  });
  const problem = 'reason' in checked ? checked.reason : insecureReason(checked.address, context);
  if (problem !== null || !('address' in checked)) {
    // Spec 7: a gateway client that cannot be built from the environment means no route (null, not an error).
    return {
      rule: 'gateway',
      outcome: 'failed',
      reason: `GATEWAY_API_KEY is set but the gateway client cannot be built: ${name}: ${problem}`,
    };
  }
  const resolved = adapterResolution({
    rule: 'gateway',
    provider: 'gateway',
    baseUrl: checked.address,
    apiKey,
    // Rule 6: thinking off in the record, yet not disabled on the wire.
    thinking: false,
    disableThinking: false,
    model: modelsOfParsed(config)[0],
  });
  return {
    rule: 'gateway',
    outcome: 'resolved',
    reason: `GATEWAY_API_KEY is set: ${checked.address}`,
    resolved,
    warnings: [],
  };
}

function insecureReason(address: string, context: Context): string | null {
  return insecureHttpReason(
    address,
    insecureHttpAllowed(context.options.allowInsecureHttp, context.environment),
  );
}

function* steps(config: unknown, context: Context, override: ChatClient | undefined): Generator<RuleStep> {
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
  const context: Context = { environment: given.env ?? process.env, options: given };
  const tried: RuleStep[] = [];
  for (const step of steps(config === undefined ? {} : config, context, given.override)) {
    tried.push(step);
    if (step.outcome !== 'skipped') break;
  }
  return tried;
}
