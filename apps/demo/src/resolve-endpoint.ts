import type { ChatClient } from '@switchboard/adapter';
import { type ChatEndpoint, resolveChatEndpoint, type SwitchboardConfig } from '@switchboard/endpoint';
import { checkScriptedFlag } from './check-scripted-flag.js';
import { CliError } from './cli-error.js';

/** The resolved client and record, or a one-line reason why nothing resolved (exit 1). */
export function resolveOrExplain(
  config: SwitchboardConfig,
  env: Record<string, string | undefined>,
): { client: ChatClient; endpoint: ChatEndpoint; rule: string } {
  checkScriptedFlag(env);
  const resolved = resolveChatEndpoint(config, { env });
  if (resolved === null) {
    throw new CliError(
      env.GATEWAY_API_KEY
        ? 'no chat endpoint: GATEWAY_API_KEY is set but the gateway client cannot be built (is GATEWAY_BASE_URL an absolute http(s) URL?)'
        : 'no chat endpoint: set PRIMARY_API_KEY or GATEWAY_API_KEY, name an endpoint in the config (models.chat_base_url), or set SWITCHBOARD_CLIENT=scripted',
    );
  }
  return resolved;
}
