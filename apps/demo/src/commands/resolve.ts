import type { SwitchboardConfig } from '@switchboard/endpoint';
import type { Io } from '../io.js';
import { resolveOrExplain } from '../resolve-endpoint.js';
import { safeJson } from '../terminal-text.js';
import { unsetKeyWarning } from '../unset-key-warning.js';

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
