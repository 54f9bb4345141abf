import { isAdapterResolution, type SwitchboardConfig } from '@switchboard/endpoint';
import { BAD_INPUT_EXIT_CODE, CliError } from '../cli-error.js';
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
  // Asking an offline client for a provider's model list is a mistake in the input, not a failed call.
  if (!isAdapterResolution(resolved)) {
    const why =
      resolved.rule === 'scripted'
        ? `SWITCHBOARD_CLIENT selects the scripted client, which has no model listing: unset it to list a provider's models`
        : `the ${resolved.endpoint.provider} client has no model listing`;
    throw new CliError(why, BAD_INPUT_EXIT_CODE);
  }
  const models = await resolved.client.listModels();
  const { provider, baseUrl } = resolved.endpoint;
  if (options.json) {
    io.stdout(safeJson({ provider, baseUrl, models }));
    return;
  }
  io.stdout(`${models.map(safeText).join('\n')}\n`);
}
