import { ChatAdapter, type ChatClient, OpenAITransport } from '@switchboard/adapter';
import { priceOf } from '@switchboard/prices';
import { SCRIPTED_FLAGS, scriptedClient } from '@switchboard/scripted';
import { ChatEndpoint } from './chat-endpoint.js';
import { ConfigError } from './config-error.js';
import { PRIMARY_DEFAULT_BASE_URL, SCRIPTED_FLAG_ENV } from './constants.js';
import { type Environment, readVariable } from './environment.js';
import { gatewayTransportFromEnvironment } from './gateway-transport.js';
import { hasCredentials, isAbsoluteHttpUrl, withoutTrailingSlashes } from './http-url.js';
import { parseConfig } from './parse-config.js';
import { providerOf } from './provider-of.js';
import { modelsOfParsed } from './resolve-models.js';
import type { SwitchboardConfig } from './switchboard-config.js';

/** Options of {@link resolveChatEndpoint}. */
export interface ResolveChatEndpointOptions {
  /** A client to use as it is, before every other rule; its endpoint is the scripted record. */
  override?: ChatClient;
  /** Where environment variables are read; default `process.env`. Never mutated. */
  env?: Record<string, string | undefined>;
}

/** Which resolution rule picked the endpoint: override (1), scripted flag (2), configured (4), primary (5), gateway (6). */
export type ResolutionRule = 'override' | 'scripted' | 'configured' | 'primary' | 'gateway';

/** The chat client a pipeline talks to and the record of where its calls go. */
export interface ResolvedChatEndpoint {
  /** The rule that resolved, for display and journals. */
  rule: ResolutionRule;
  /** The client: the override, a scripted client, or a `ChatAdapter` over an `OpenAITransport`. */
  client: ChatClient;
  /** Where the calls go, with the pricing model's prices; never the key. */
  endpoint: ChatEndpoint;
}

const PRIMARY_API_KEY = 'PRIMARY_API_KEY';

function scriptedEndpoint(): ChatEndpoint {
  return new ChatEndpoint({ provider: 'scripted', baseUrl: '', thinking: false, prices: null });
}

function primaryBaseUrl(environment: Environment): string {
  const baseUrl = readVariable(environment, 'PRIMARY_BASE_URL');
  if (baseUrl === undefined) return PRIMARY_DEFAULT_BASE_URL;
  if (hasCredentials(baseUrl)) {
    // fetch refuses such an address, and the value is not echoed: it holds a secret.
    throw new ConfigError(
      'PRIMARY_BASE_URL: expected an absolute http(s) URL without credentials (user:password@), got one with them',
      { path: 'PRIMARY_BASE_URL' },
    );
  }
  if (!isAbsoluteHttpUrl(baseUrl)) {
    throw new ConfigError(
      `PRIMARY_BASE_URL: expected an absolute http(s) URL, got ${JSON.stringify(baseUrl)}`,
      {
        path: 'PRIMARY_BASE_URL',
      },
    );
  }
  return baseUrl;
}

/**
 * Picks the one chat client and endpoint record, by the spec's resolution rules, in order:
 *
 * 1. `override` given: it, unwrapped, with a `scripted` record (`baseUrl ''`, thinking off, no prices).
 * 2. `SWITCHBOARD_CLIENT` (lowercased, trimmed) is a scripted flag: `scriptedClient(flag)`, same record.
 * 3. The pricing model is the detector model of `resolveModels`.
 * 4. `models.chat_base_url` or `models.chat_api_key_env` set: that address (or the primary default),
 *    provider from the address, key from the named variable (or `PRIMARY_API_KEY`), `''` when unset.
 * 5. `PRIMARY_API_KEY` set: `PRIMARY_BASE_URL` or the primary default, provider `primary`.
 * 6. `GATEWAY_API_KEY` set: the gateway transport from the environment (null when it cannot be
 *    built), thinking off in the record but not disabled on the wire.
 * 7. Otherwise null.
 *
 * In 4 and 5 trailing `/` are removed, `thinking` is `models.thinking ?? false` and the adapter
 * disables thinking exactly when it is off. Records in 4–6 carry the pricing model's prices, and
 * their client is a `ChatAdapter` over an `OpenAITransport` with the record as its cost model.
 * An empty or blank environment variable counts as unset.
 *
 * @throws {ConfigError} when `config` is not a valid configuration (checked with `parseConfig`
 *   once rules 1 and 2 have not applied), or when rule 5 meets a `PRIMARY_BASE_URL` that is not an
 *   absolute http(s) URL.
 */
export function resolveChatEndpoint(
  config: SwitchboardConfig = {},
  options: ResolveChatEndpointOptions = {},
): ResolvedChatEndpoint | null {
  // A JavaScript caller's `null` means no options, like `undefined`.
  const { override, env } = options ?? {};
  const environment: Environment = env ?? process.env;

  if (override !== undefined && override !== null) {
    if (typeof override.complete !== 'function') {
      throw new TypeError('override must be a chat client with a complete(request) method');
    }
    return { rule: 'override', client: override, endpoint: scriptedEndpoint() };
  }

  const flag = readVariable(environment, SCRIPTED_FLAG_ENV)?.toLowerCase();
  if (flag !== undefined && SCRIPTED_FLAGS.has(flag)) {
    return { rule: 'scripted', client: scriptedClient(flag), endpoint: scriptedEndpoint() };
  }

  // Rules 1 and 2 need no configuration; every later rule reads it, so it is checked here.
  const parsed = parseConfig(config);

  const [model] = modelsOfParsed(parsed);
  const models = parsed.models ?? {};
  const thinking = models.thinking ?? false;

  if (models.chat_base_url || models.chat_api_key_env) {
    const baseUrl = withoutTrailingSlashes(models.chat_base_url || PRIMARY_DEFAULT_BASE_URL);
    const apiKey = readVariable(environment, models.chat_api_key_env || PRIMARY_API_KEY) ?? '';
    return adapterRoute('configured', new OpenAITransport({ apiKey, baseUrl }), {
      provider: providerOf(baseUrl),
      baseUrl,
      thinking,
      model,
    });
  }

  const primaryKey = readVariable(environment, PRIMARY_API_KEY);
  if (primaryKey !== undefined) {
    const baseUrl = withoutTrailingSlashes(primaryBaseUrl(environment));
    return adapterRoute('primary', new OpenAITransport({ apiKey: primaryKey, baseUrl }), {
      provider: 'primary',
      baseUrl,
      thinking,
      model,
    });
  }

  if (readVariable(environment, 'GATEWAY_API_KEY') !== undefined) {
    let transport: OpenAITransport;
    try {
      transport = gatewayTransportFromEnvironment(environment);
    } catch {
      // Spec 7: a gateway client that cannot be built from the environment means no route.
      return null;
    }
    const endpoint = new ChatEndpoint({
      provider: 'gateway',
      baseUrl: transport.baseUrl,
      thinking: false,
      prices: priceOf(model),
    });
    return {
      rule: 'gateway',
      client: new ChatAdapter(transport, { disableThinking: false, endpoint }),
      endpoint,
    };
  }

  return null;
}

interface AdapterRoute {
  provider: 'primary' | 'gateway' | 'custom';
  baseUrl: string;
  thinking: boolean;
  model: string;
}

// Rules 4, 5 and 8: the record carries the model's prices; the adapter disables thinking unless it is on.
function adapterRoute(
  rule: 'configured' | 'primary',
  transport: OpenAITransport,
  route: AdapterRoute,
): ResolvedChatEndpoint {
  const endpoint = new ChatEndpoint({
    provider: route.provider,
    baseUrl: route.baseUrl,
    thinking: route.thinking,
    prices: priceOf(route.model),
  });
  return {
    rule,
    client: new ChatAdapter(transport, { disableThinking: !route.thinking, endpoint }),
    endpoint,
  };
}
