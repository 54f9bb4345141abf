import {
  explainResolution,
  type ResolvedChatEndpoint,
  resolveChatEndpoint,
  type SwitchboardConfig,
} from '@switchboard/endpoint';
import { checkScriptedFlag } from './check-scripted-flag.js';
import { BAD_INPUT_EXIT_CODE, CliError } from './cli-error.js';

/**
 * The resolved client and record, or a one-line reason why nothing resolved (exit 2: the
 * environment or configuration is missing something).
 */
export function resolveOrExplain(
  config: SwitchboardConfig,
  env: Record<string, string | undefined>,
): ResolvedChatEndpoint {
  checkScriptedFlag(env);
  const resolved = resolveChatEndpoint(config, { env });
  if (resolved !== null) return resolved;
  // The explanation reads the environment as the rules do, so a blank key gets the right words.
  throw new CliError(explainResolution(config, { env }).message, BAD_INPUT_EXIT_CODE);
}
