import { existsSync } from 'node:fs';
import {
  DEFAULT_CONFIG_FILE,
  explainResolution,
  type ResolvedChatEndpoint,
  resolveChatEndpoint,
  type SwitchboardConfig,
} from '@switchboard/endpoint';
import { checkScriptedFlag } from './check-scripted-flag.js';
import { BAD_INPUT_EXIT_CODE, CliError } from './cli-error.js';
import { NO_CONFIG_FILE } from './load-config.js';

/**
 * The resolved client and record, or a one-line reason why nothing resolved (exit 2: the
 * environment or configuration is missing something), mentioning `--config` when a
 * `switchboard.toml` sits in the working directory unread.
 */
export function resolveOrExplain(
  config: SwitchboardConfig,
  env: Record<string, string | undefined>,
): ResolvedChatEndpoint {
  checkScriptedFlag(env);
  const resolved = resolveChatEndpoint(config, { env });
  if (resolved !== null) return resolved;
  // The explanation reads the environment as the rules do, so a blank key gets the right words.
  let message = explainResolution(config, { env }).message;
  if (config === NO_CONFIG_FILE && existsSync(DEFAULT_CONFIG_FILE)) {
    message += `; a ${DEFAULT_CONFIG_FILE} is in this folder but was not read: pass --config ${DEFAULT_CONFIG_FILE}`;
  }
  throw new CliError(message, BAD_INPUT_EXIT_CODE);
}
