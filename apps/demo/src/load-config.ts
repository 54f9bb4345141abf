import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { ConfigError, parseConfig, type SwitchboardConfig } from '@switchboard/endpoint';
import { parse as parseToml } from 'smol-toml';
import { CliError } from './cli-error.js';

/** Exit code for a configuration or input file that cannot be used. */
export const BAD_INPUT_EXIT_CODE = 2;

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
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new CliError(`${file}: cannot read the config file (${code})`, BAD_INPUT_EXIT_CODE);
  }
  try {
    return parseConfig(parseText(file, text));
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError(`${file}: ${error.message}`, BAD_INPUT_EXIT_CODE);
    throw error;
  }
}
