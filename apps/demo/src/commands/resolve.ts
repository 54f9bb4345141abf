import type { SwitchboardConfig } from '@switchboard/endpoint';
import type { Io } from '../io.js';
import { resolveOrExplain } from '../resolve-endpoint.js';
import { safeJson } from '../terminal-text.js';

// The configured route sends the key of this variable, or none when it is unset (spec 2.4, rule 4).
function unsetKeyWarning(config: SwitchboardConfig, env: Io['env']): string | null {
  const named = config.models?.chat_api_key_env;
  const variable = named || 'PRIMARY_API_KEY';
  if ((env[variable] ?? '').trim() !== '') return null;
  const source = named
    ? `models.chat_api_key_env names ${variable}, which`
    : `${variable} (the default key variable)`;
  return `warning: ${source} is unset: calls will be sent without a key and fail with 401`;
}

/** `switchboard resolve`: which rule resolved, and the endpoint record as JSON (never the key). */
export function resolveCommand(io: Io, config: SwitchboardConfig, options: { json?: boolean }): void {
  const { endpoint, rule } = resolveOrExplain(config, io.env);
  const warning = rule === 'configured' ? unsetKeyWarning(config, io.env) : null;
  if (warning !== null) io.stderr(`switchboard: ${warning}\n`);
  if (options.json) {
    io.stdout(safeJson({ rule, endpoint }));
    return;
  }
  io.stdout(`resolved by rule: ${rule}\n`);
  io.stdout(safeJson(endpoint));
}
