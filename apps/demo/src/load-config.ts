import { extname } from 'node:path';
import { ConfigError, parseConfigWithWarnings, type SwitchboardConfig } from '@switchboard/endpoint';
import { parse as parseToml, TomlError } from 'smol-toml';
import { BAD_INPUT_EXIT_CODE, CliError } from './cli-error.js';
import { jsonErrorOffset } from './json-error-offset.js';
import { readInputFile } from './read-input-file.js';
import { safeText } from './terminal-text.js';

/** How `loadConfig` reports what is probably a typo. */
export interface LoadConfigOptions {
  /** Make each warning an error (exit 2). */
  strict?: boolean;
  /** Where warnings go (one line each, without a trailing newline). */
  warn: (text: string) => void;
}

function jsonLocation(text: string): string {
  const offset = jsonErrorOffset(text);
  if (offset === null) return '';
  const before = text.slice(0, offset).split('\n');
  return `:${before.length}:${(before.at(-1)?.length ?? 0) + 1}`;
}

function parseText(file: string, text: string): unknown {
  const isJson = extname(file).toLowerCase() === '.json';
  try {
    return isJson ? JSON.parse(text) : parseToml(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // smol-toml adds the offending lines under the first; V8 may quote the text with its newlines.
    const reason = isJson ? message.replaceAll('\n', '\\n') : (message.split('\n')[0] ?? '');
    const where =
      error instanceof TomlError ? `:${error.line}:${error.column}` : isJson ? jsonLocation(text) : '';
    throw new CliError(
      `${file}${where}: not valid ${isJson ? 'JSON' : 'TOML'}: ${safeText(reason)}`,
      BAD_INPUT_EXIT_CODE,
    );
  }
}

/**
 * Reads a `switchboard.toml` (the spec's keys under `[models]`) or a JSON file
 * and validates it with `parseConfig`; probable typos are warned about (errors
 * with `strict`). Without a file, the empty configuration.
 */
export async function loadConfig(
  file: string | undefined,
  options: LoadConfigOptions = { warn: () => {} },
): Promise<SwitchboardConfig> {
  if (file === undefined) return {};
  const text = await readInputFile(file, 'config file');
  const input = parseText(file, text);
  try {
    const { config, warnings } = parseConfigWithWarnings(input, { strict: options.strict === true });
    for (const warning of warnings) options.warn(`warning: ${file}: ${safeText(warning.message)}`);
    return config;
  } catch (error) {
    if (ConfigError.isInstance(error)) {
      throw new CliError(`${file}: ${safeText(error.message)}`, BAD_INPUT_EXIT_CODE);
    }
    throw error;
  }
}
