import {
  explainResolution,
  type ResolvedChatEndpoint,
  resolveChatEndpoint,
  type SwitchboardConfig,
} from '@switchboard/endpoint';
import { checkScriptedFlag } from './check-scripted-flag.js';
import { CliError } from './cli-error.js';

/** The resolved client and record, or a one-line reason why nothing resolved (exit 1). */
export function resolveOrExplain(
  config: SwitchboardConfig,
  env: Record<string, string | undefined>,
): ResolvedChatEndpoint {
  checkScriptedFlag(env);
  const resolved = resolveChatEndpoint(config, { env });
  // The explanation reads the environment as the rules do, so a blank key gets the right words.
  if (resolved === null) throw new CliError(explainResolution(config, { env }).message);
  return resolved;
}
