import { attachObservers, checkObservers } from './attach-observers.js';
import { emitConfigWarning, wasWarned } from './config-warning-sink.js';
import { configWarnings } from './config-warnings.js';
import { resolutionSteps } from './resolution-steps.js';
import type { ResolveChatEndpointOptions } from './resolve-chat-endpoint-options.js';
import type { ResolvedChatEndpoint } from './resolved-chat-endpoint.js';
import type { SwitchboardConfig } from './switchboard-config.js';

/**
 * Picks the one chat client and endpoint record, by the resolution rules, in order:
 *
 * 1. `override` given: it, unwrapped, with a `scripted` record (`baseUrl ''`, thinking off, no prices).
 * 2. `SWITCHBOARD_CLIENT` (lowercased, trimmed) is a scripted flag: `scriptedClient(flag)`, same record.
 * 3. The pricing model is the detector model of `resolveModels`.
 * 4. `models.chat_base_url` or `models.chat_api_key_env` set: that address (or the primary default),
 *    provider from the normalised address, key from the named variable (or `PRIMARY_API_KEY`), `''` when unset.
 * 5. `PRIMARY_API_KEY` set: `PRIMARY_BASE_URL` or the primary default, provider `primary`.
 * 6. `GATEWAY_API_KEY` set: `GATEWAY_BASE_URL` or the gateway default (null when that address is
 *    refused), thinking off in the record but not disabled on the wire.
 * 7. Otherwise null.
 *
 * In 4 and 5 `thinking` is `models.thinking ?? false` and the adapter disables thinking exactly
 * when it is off. Addresses are normalised by `parseBaseUrl` (no trailing `/`). Records in 4–6
 * carry the pricing model's prices, and their client is a `ChatAdapter` over a `NodeTransport` in
 * Node (`FetchTransport` elsewhere; proxies from `HTTPS_PROXY`/`HTTP_PROXY`/`NO_PROXY` in `env`)
 * with the record as its cost model (`rule` tells which client type `client` is). An empty or blank
 * environment variable counts as unset. Where a key may go: plain `http://` only to a
 * loopback address unless `allowInsecureHttp` or `SWITCHBOARD_ALLOW_INSECURE_HTTP=1` allows it;
 * `models.chat_api_key_env` only names a key-like variable (`isKeyLikeVariable`) unless
 * `allowKeyVariable` allows it. `explainResolution` says why a rule did not apply.
 * `observers` (a budget, a meter) are added to the adapter of rules 4–6, each told the endpoint
 * first through its `withEndpoint` hook (with the configuration's `[telemetry] provider_name`);
 * rules 1 and 2 make no raw call of ours, so they get none.
 * A configuration object passed straight in gets the warnings a file gets from `loadConfig`
 * (unknown keys inside `models`, ...; see `onConfigWarning`).
 *
 * @throws {ConfigError} once rules 1 and 2 have not applied: for a configuration `parseConfig`
 *   refuses, a `chat_api_key_env` that is not key-like, a `PRIMARY_BASE_URL` that is not an absolute
 *   http(s) URL or carries a version path, and a key bound for plain http to a host that is not loopback.
 */
export function resolveChatEndpoint(
  config: SwitchboardConfig = {},
  options: ResolveChatEndpointOptions = {},
): ResolvedChatEndpoint | null {
  const observers = checkObservers(options?.observers);
  const last = resolutionSteps(config, options).at(-1);
  // Rules 1 and 2 never read the configuration; a refused one throws its ConfigError instead.
  const readConfig = last !== undefined && last.rule !== 'override' && last.rule !== 'scripted';
  if (readConfig && last.outcome !== 'refused' && !wasWarned(config)) {
    const tell = options?.onConfigWarning ?? emitConfigWarning;
    for (const warning of configWarnings(config as Record<string, unknown>)) tell(warning.message, warning);
  }
  if (last?.outcome === 'resolved') return attachObservers(last.resolved, observers, config);
  if (last?.outcome === 'refused') throw last.error;
  return null;
}
