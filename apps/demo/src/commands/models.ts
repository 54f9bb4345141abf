import { isAdapterResolution, type SwitchboardConfig } from '@switchboard/endpoint';
import { CliError } from '../cli-error.js';
import type { Io } from '../io.js';
import { resolveOrExplain } from '../resolve-endpoint.js';

/** `switchboard models`: the resolved endpoint's `GET /models`, one id per line. */
export async function modelsCommand(io: Io, config: SwitchboardConfig): Promise<void> {
  const resolved = resolveOrExplain(config, io.env);
  if (!isAdapterResolution(resolved)) {
    throw new CliError(`the ${resolved.endpoint.provider} client has no model listing`);
  }
  const models = await resolved.client.listModels();
  io.stdout(`${models.join('\n')}\n`);
}
