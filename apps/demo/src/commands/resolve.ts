import type { Io } from '../io.js';
import type { CliConfig } from '../load-config.js';
import { resolveOrExplain } from '../resolve-endpoint.js';
import { safeJson, safeText } from '../terminal-text.js';
import { unsetKeyWarning } from '../unset-key-warning.js';

/** What `resolve` says of the configuration it read. */
function configLine({ file, byDefault }: CliConfig): string {
  if (file === null) return 'config: none (no --config, and no switchboard.toml in the working directory)';
  return `config: ${safeText(file)}${byDefault ? ' (read by default from the working directory)' : ''}`;
}

/**
 * `switchboard resolve`: which rule resolved, the configuration file read (`--config`, or
 * `./switchboard.toml` by default), and the endpoint record as JSON (never the key).
 */
export function resolveCommand(io: Io, loaded: CliConfig, options: { json?: boolean }): void {
  const { config, file } = loaded;
  const { endpoint, rule } = resolveOrExplain(config, io.env);
  const warning = rule === 'configured' ? unsetKeyWarning(config, io.env) : null;
  if (warning !== null) io.stderr(`switchboard: ${warning}\n`);
  if (options.json) {
    io.stdout(safeJson({ rule, config: file, endpoint }));
    return;
  }
  io.stdout(`resolved by rule: ${rule}\n`);
  io.stdout(`${configLine(loaded)}\n`);
  io.stdout(safeJson(endpoint));
}
