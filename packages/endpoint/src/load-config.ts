import { constants, existsSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { ConfigError } from './config-error.js';
import { pathText } from './config-path.js';
import { emitConfigWarning } from './config-warning-sink.js';
import type { ConfigWarning } from './config-warnings.js';
import { isPlainObject } from './is-plain-object.js';
import { jsonErrorOffset } from './json-error-offset.js';
import { type ParseConfigOptions, parseConfigWithWarnings } from './parse-config.js';
import type { SwitchboardConfig } from './switchboard-config.js';
import { impossibleTomlDates } from './toml-impossible-dates.js';

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

/**
 * The most a configuration file may hold. A configuration is a few lines: the cap stops a wrong
 * path (`/dev/urandom`, `/dev/zero`, a log) from filling the memory before anything is checked.
 */
const MAX_CONFIG_BYTES = 1024 * 1024;

function unreadable(file: string, reason: string, cause?: unknown): ConfigError {
  return new ConfigError(`cannot read the config file: ${reason}: ${file}`, { path: 'config', cause });
}

/**
 * The file's text: a regular file of at most {@link MAX_CONFIG_BYTES}. Anything else is refused at
 * once, without reading it: a directory, a device (`/dev/zero` never ends), a FIFO or a socket
 * (reading one waits for a writer, maybe forever).
 */
async function readConfigText(file: string): Promise<string> {
  let handle: FileHandle;
  try {
    // Non-blocking: opening a FIFO to read would otherwise wait until something opens it to write.
    handle = await open(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code ?? '';
    throw unreadable(file, REASONS[code] ?? `unreadable${code === '' ? '' : ` (${code})`}`, error);
  }
  try {
    const stat = await handle.stat();
    if (stat.isDirectory()) throw unreadable(file, REASONS.EISDIR as string);
    if (!stat.isFile()) throw unreadable(file, 'not a regular file (a device, FIFO or socket)');
    const tooLarge = () => unreadable(file, `larger than ${MAX_CONFIG_BYTES / 1024 / 1024} MiB`);
    if (stat.size > MAX_CONFIG_BYTES) throw tooLarge();
    // Read to the cap and one byte past it, whatever the size said: a file may grow, or report 0.
    const buffer = Buffer.alloc(MAX_CONFIG_BYTES + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > MAX_CONFIG_BYTES) throw tooLarge();
    }
    return buffer.toString('utf8', 0, length);
  } catch (error) {
    if (ConfigError.isInstance(error)) throw error;
    const code = (error as NodeJS.ErrnoException | undefined)?.code ?? '';
    throw unreadable(file, REASONS[code] ?? `unreadable${code === '' ? '' : ` (${code})`}`, error);
  } finally {
    await handle.close().catch(() => {});
  }
}

/**
 * Refuses a TOML date that does not exist (`checked_at = 2026-02-30`): the parser hands it back
 * rolled over to another day (March 2) with no sign of it, so it is found in the text, and named
 * by the key that holds the day it became.
 */
function refuseImpossibleDates(file: string, text: string, input: unknown): void {
  const [first] = impossibleTomlDates(text);
  if (first === undefined) return;
  const holder = checkedAtHolding(input, first.rolledTo);
  const path = holder === null ? 'config' : pathText(['prices', holder, 'checked_at']);
  throw new ConfigError(
    `${file}:${first.line}:${first.column}: ${holder === null ? '' : `${path}: `}no such date: ${first.text} (a TOML parser reads it as ${first.rolledTo}); expected an ISO date, 'YYYY-MM-DD'`,
    { path },
  );
}

/** The model id of the `[prices."id"]` entry whose `checked_at` is the day `date`, or null. */
function checkedAtHolding(input: unknown, date: string): string | null {
  const prices = isPlainObject(input) ? input.prices : undefined;
  if (!isPlainObject(prices)) return null;
  for (const [model, entry] of Object.entries(prices)) {
    const checked = isPlainObject(entry) ? entry.checked_at : undefined;
    if (checked instanceof Date && checked.toISOString().slice(0, 10) === date) return model;
  }
  return null;
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
  const text = await readConfigText(file);
  const input = await parseText(file, text);
  if (!isJsonFile(file)) refuseImpossibleDates(file, text, input);
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
