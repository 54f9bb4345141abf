import { extname } from 'node:path';
import { ConfigError, parseConfig, type SwitchboardConfig } from '@switchboard/endpoint';
import { parse as parseToml } from 'smol-toml';
import { BAD_INPUT_EXIT_CODE, CliError } from './cli-error.js';
import { readInputFile } from './read-input-file.js';

function parseText(file: string, text: string): unknown {
  const extension = extname(file).toLowerCase();
  try {
    if (extension === '.json') return JSON.parse(text);
    return parseToml(text);
  } catch (error) {
    const format = extension === '.json' ? 'JSON' : 'TOML';
    const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0];
    throw new CliError(`${file}: not valid ${format}: ${reason}`, BAD_INPUT_EXIT_CODE);
  }
}

/**
 * Reads a `switchboard.toml` (the spec's keys under `[models]`) or a JSON file
 * and validates it with `parseConfig`. Without a file, the empty configuration.
 */
export async function loadConfig(file: string | undefined): Promise<SwitchboardConfig> {
  if (file === undefined) return {};
  const text = await readInputFile(file, 'config file');
  try {
    return parseConfig(parseText(file, text));
  } catch (error) {
    if (ConfigError.isInstance(error)) throw new CliError(`${file}: ${error.message}`, BAD_INPUT_EXIT_CODE);
    throw error;
  }
}
