import { ChatAdapter } from '@switchboard/adapter';
import type { SwitchboardConfig } from '@switchboard/endpoint';
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
  const { client, endpoint } = resolveOrExplain(config, io.env);
  if (!(client instanceof ChatAdapter)) {
    throw new CliError(`the ${endpoint.provider} client has no model listing`);
  }
  const models = await client.listModels();
  if (options.json) {
    io.stdout(safeJson({ provider: endpoint.provider, baseUrl: endpoint.baseUrl, models }));
    return;
  }
  io.stdout(`${models.map(safeText).join('\n')}\n`);
}
