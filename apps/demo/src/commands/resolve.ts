import type { SwitchboardConfig } from '@switchboard/endpoint';
import type { Io } from '../io.js';
import { resolveOrExplain } from '../resolve-endpoint.js';

/** `switchboard resolve`: which rule resolved, and the endpoint record as JSON (never the key). */
export function resolveCommand(io: Io, config: SwitchboardConfig, options: { json?: boolean }): void {
  const { endpoint, rule } = resolveOrExplain(config, io.env);
  if (options.json) {
    io.stdout(`${JSON.stringify({ rule, endpoint }, null, 2)}\n`);
    return;
  }
  io.stdout(`resolved by rule: ${rule}\n`);
  io.stdout(`${JSON.stringify(endpoint, null, 2)}\n`);
}
