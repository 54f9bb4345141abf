import { isAdapterResolution, type SwitchboardConfig } from '@switchboard/endpoint';
import { CliError } from '../cli-error.js';
import type { Io } from '../io.js';
import { resolveOrExplain } from '../resolve-endpoint.js';
import { safeJson, safeText } from '../terminal-text.js';

/** `switchboard models`: the resolved endpoint's `GET /models`, one id per line (or JSON). */
export async function modelsCommand(
  io: Io,
  config: SwitchboardConfig,
  options: { json?: boolean } = {},
): Promise<void> {
  const resolved = resolveOrExplain(config, io.env);
  if (!isAdapterResolution(resolved)) {
    throw new CliError(`the ${resolved.endpoint.provider} client has no model listing`);
  }
  const models = await resolved.client.listModels();
  const { provider, baseUrl } = resolved.endpoint;
  if (options.json) {
    io.stdout(safeJson({ provider, baseUrl, models }));
    return;
  }
  io.stdout(`${models.map(safeText).join('\n')}\n`);
}
