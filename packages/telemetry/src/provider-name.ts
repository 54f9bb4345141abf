import { boundedString } from './bounded-string.js';
import type { EndpointInfo } from './telemetry-record.js';

// The shape of the GenAI conventions' `gen_ai.provider.name` values: lowercase
// words joined by dots, digits and underscores inside (as in their list).
const PROVIDER_NAME = /^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$/;
const MAX_PROVIDER_NAME = 64;

/** Whether `value` is shaped like a `gen_ai.provider.name` value of the conventions' list. */
function isProviderName(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_PROVIDER_NAME && PROVIDER_NAME.test(value);
}

/**
 * `gen_ai.provider.name` of an observer's spans and metrics: the `providerName`
 * option; else the name the configuration gave the endpoint
 * (`[telemetry] provider_name`); else our own `switchboard.<provider kind>`
 * (`switchboard.primary`, `switchboard.gateway`, `switchboard.custom`,
 * `switchboard.scripted`), or `switchboard.unknown` without an endpoint.
 */
export function providerNameOf(option: unknown, endpoint: EndpointInfo | null | undefined): string {
  if (option !== undefined) {
    if (!isProviderName(option)) {
      throw new TypeError(
        `options.providerName must be a gen_ai.provider.name value as the GenAI conventions list it (lowercase words joined by '.', at most ${MAX_PROVIDER_NAME} characters), got ${describe(option)}`,
      );
    }
    return option;
  }
  if (isProviderName(endpoint?.providerName)) return endpoint.providerName;
  const kind = endpoint?.provider;
  return `switchboard.${typeof kind === 'string' && kind !== '' ? boundedString(kind, 32) : 'unknown'}`;
}

function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(boundedString(value, 80)) : `a ${typeof value}`;
}
