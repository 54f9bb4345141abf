import { adapterResolution } from './adapter-resolution.js';
import { cassetteSetting } from './cassette-setting.js';
import { checkBaseUrl } from './check-base-url.js';
import { endpointPriceBook } from './endpoint-price-book.js';
import { readVariable } from './environment.js';
import { insecureHttpAllowed, insecureHttpReason } from './insecure-http.js';
import { KEY_VARIABLE_RULE, keyVariableAllowed } from './key-variable.js';
import { PRIMARY_DEFAULT_BASE_URL } from './primary-base-url.js';
import type { ProviderKind } from './provider-kind.js';
import { providerOf } from './provider-of.js';
import { modelsOfParsed } from './resolve-models.js';
import { type RuleContext, type RuleStep, refused } from './rule-step.js';
import type { SwitchboardConfig } from './switchboard-config.js';

/** The gateway's address when `GATEWAY_BASE_URL` is unset. It carries a version path. */
export const GATEWAY_DEFAULT_BASE_URL = 'https://gateway.example/api/v1';

const PRIMARY_API_KEY = 'PRIMARY_API_KEY';

/** Rule 4: the address and key variable the configuration names. */
export function configuredStep(config: SwitchboardConfig, context: RuleContext): RuleStep {
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
  // The primary default always passes; only a configured address can be refused.
  const name = 'models.chat_base_url';
  const checked = checkBaseUrl(models.chat_base_url || PRIMARY_DEFAULT_BASE_URL, { name });
  if ('reason' in checked) return refused('configured', `${name}: ${checked.reason}`, name);
  const apiKey = readVariable(context.environment, keyVariable) ?? '';
  const insecure = apiKey === '' ? null : insecureReason(checked.address, context);
  if (insecure !== null) return refused('configured', `${name}: ${insecure}`, name);
  const resolved = thinkingRoute(
    'configured',
    providerOf(checked.address),
    checked.address,
    apiKey,
    config,
    context,
  );
  const warnings =
    apiKey === ''
      ? [`${keyVariable} is unset or blank: calls go without credentials and will likely fail with 401`]
      : [];
  return {
    rule: 'configured',
    outcome: 'resolved',
    reason: `models.chat_base_url or models.chat_api_key_env is set: ${checked.address}, key from ${keyVariable}`,
    resolved,
    warnings,
  };
}

/** Rule 5: `PRIMARY_API_KEY`, at `PRIMARY_BASE_URL` or the primary default. */
export function primaryStep(config: SwitchboardConfig, context: RuleContext): RuleStep {
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
  const resolved = thinkingRoute('primary', 'primary', checked.address, apiKey, config, context);
  return {
    rule: 'primary',
    outcome: 'resolved',
    reason: `${PRIMARY_API_KEY} is set: ${checked.address}`,
    resolved,
    warnings: [],
  };
}

/** Rule 6: `GATEWAY_API_KEY`, at `GATEWAY_BASE_URL` or the gateway default; `failed` when that address is refused. */
export function gatewayStep(config: SwitchboardConfig, context: RuleContext): RuleStep {
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
    // A gateway client that cannot be built from the environment means no route (null, not an error).
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
    priceBook: endpointPriceBook(config, context.options),
    cassette: cassetteSetting(context.options.cassette, context.environment),
    environment: context.environment,
  });
  return {
    rule: 'gateway',
    outcome: 'resolved',
    reason: `GATEWAY_API_KEY is set: ${checked.address}`,
    resolved,
    warnings: [],
  };
}

function insecureReason(address: string, context: RuleContext): string | null {
  return insecureHttpReason(
    address,
    insecureHttpAllowed(context.options.allowInsecureHttp, context.environment),
  );
}

/**
 * Rules 4 and 5 with rule 8: `thinking` is `models.thinking ?? false`, the adapter disables
 * thinking exactly when it is off, and the record is priced for the detector model.
 */
function thinkingRoute(
  rule: 'configured' | 'primary',
  provider: Exclude<ProviderKind, 'scripted'>,
  baseUrl: string,
  apiKey: string,
  config: SwitchboardConfig,
  context: RuleContext,
) {
  const thinking = config.models?.thinking ?? false;
  return adapterResolution({
    rule,
    provider,
    baseUrl,
    apiKey,
    thinking,
    disableThinking: !thinking,
    model: modelsOfParsed(config)[0],
    priceBook: endpointPriceBook(config, context.options),
    cassette: cassetteSetting(context.options.cassette, context.environment),
    environment: context.environment,
  });
}
