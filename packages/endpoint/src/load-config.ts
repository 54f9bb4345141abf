import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { ConfigError } from './config-error.js';
import { emitConfigWarning } from './config-warning-sink.js';
import type { ConfigWarning } from './config-warnings.js';
import { jsonErrorOffset } from './json-error-offset.js';
import { type ParseConfigOptions, parseConfigWithWarnings } from './parse-config.js';
import type { SwitchboardConfig } from './switchboard-config.js';

/** The file `loadConfig()` reads when no path is given, in the working directory. */
export const DEFAULT_CONFIG_FILE = 'switchboard.toml';

/** Options of {@link loadConfig}. */
export interface LoadConfigOptions extends ParseConfigOptions {
  /**
   * Told each warning (an unknown key inside `models`, a models key outside `[models]`, ...)
   * with the file in front: `switchboard.toml: models.thinkng: unknown key, did you mean
   * "thinking"?`. Default: `process.emitWarning(text, 'SwitchboardConfigWarning')`, which
   * Node prints on stderr (silence it with `--no-warnings`, or pass a function).
   */
  onWarning?: (text: string, warning: ConfigWarning) => void;
}

// The system's error codes in words: a user reads "no such file", not ENOENT.
const REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EISDIR: 'is a directory, not a file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOTDIR: 'a part of the path is not a directory',
};

async function readConfigText(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code ?? '';
    const reason = REASONS[code] ?? `unreadable${code === '' ? '' : ` (${code})`}`;
    throw new ConfigError(`cannot read the config file: ${reason}: ${file}`, {
      path: 'config',
      cause: error,
    });
  }
}

function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `:${before.length}:${(before.at(-1)?.length ?? 0) + 1}`;
}

function isJsonFile(file: string): boolean {
  return extname(file).toLowerCase() === '.json';
}

// The TOML parser is loaded on the first TOML file, so importing this package stays light.
async function parseText(file: string, text: string): Promise<unknown> {
  const isJson = isJsonFile(file);
  const toml = isJson ? null : await import('smol-toml');
  try {
    return toml === null ? JSON.parse(text) : toml.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // smol-toml adds the offending lines under the first; V8 may quote the text with its newlines.
    const reason = isJson ? message.replaceAll('\n', '\\n') : (message.split('\n')[0] ?? '');
    let where = '';
    if (toml !== null && error instanceof toml.TomlError) where = `:${error.line}:${error.column}`;
    if (isJson) {
      const offset = jsonErrorOffset(text);
      if (offset !== null) where = lineAndColumn(text, offset);
    }
    throw new ConfigError(`${file}${where}: not valid ${isJson ? 'JSON' : 'TOML'}: ${reason}`, {
      path: 'config',
      cause: error,
    });
  }
}

/**
 * Reads a configuration file and checks it with `parseConfigWithWarnings`: TOML
 * (`switchboard.toml`, the keys under `[models]` and `[prices."model-id"]`), or JSON
 * when the name ends in `.json`. Probable typos are warned about (see `onWarning`), or
 * refused with `strict: true`.
 *
 * Without `path`, reads `./switchboard.toml` (in `process.cwd()`) when that file exists,
 * and otherwise returns the empty configuration `{}`, which resolves from the environment
 * alone. A path that is given must exist.
 *
 * @throws {ConfigError} naming the file: one that cannot be read (`cannot read the config
 *   file: no such file: ./switchboard.tml`), text that is not valid TOML or JSON (with the
 *   line and column: `switchboard.toml:3:12: not valid TOML: ...`), or a value `parseConfig`
 *   refuses (`switchboard.toml: models.thinking: expected boolean, got string`).
 */
export async function loadConfig(path?: string, options: LoadConfigOptions = {}): Promise<SwitchboardConfig> {
  let file = path;
  if (file === undefined) {
    if (!existsSync(resolve(DEFAULT_CONFIG_FILE))) return {};
    file = DEFAULT_CONFIG_FILE;
  }
  const input = await parseText(file, await readConfigText(file));
  let parsed: ReturnType<typeof parseConfigWithWarnings>;
  try {
    parsed = parseConfigWithWarnings(input, { strict: options.strict === true });
  } catch (error) {
    if (!ConfigError.isInstance(error)) throw error;
    throw new ConfigError(`${file}: ${error.message}`, { path: error.path, cause: error });
  }
  const onWarning = options.onWarning ?? emitConfigWarning;
  for (const warning of parsed.warnings) onWarning(`${file}: ${warning.message}`, warning);
  // parseConfigWithWarnings noted that the warnings were told: `resolveChatEndpoint` does not repeat them.
  return parsed.config;
}
