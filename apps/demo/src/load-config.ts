import { loadConfig, type SwitchboardConfig } from '@switchboard/endpoint';

/** How the CLI loads `--config`: warnings become `warning: <file>: ...` lines, `strict` refuses them. */
export interface CliConfigOptions {
  /** Make each warning an error (exit 2). */
  strict?: boolean;
  /** Where warnings go (one line each, without a trailing newline). */
  warn: (text: string) => void;
}

/**
 * The configuration a command runs with when no `--config` was given: the CLI reads no file
 * by itself (a `switchboard.toml` in the working directory is only mentioned when nothing resolves).
 */
export const NO_CONFIG_FILE: SwitchboardConfig = Object.freeze({});

/**
 * `--config FILE` read by the library's `loadConfig` (TOML, or JSON by extension; its
 * `ConfigError`s exit 2), or {@link NO_CONFIG_FILE} without one.
 */
export async function loadCliConfig(
  file: string | undefined,
  options: CliConfigOptions,
): Promise<SwitchboardConfig> {
  if (file === undefined) return NO_CONFIG_FILE;
  return loadConfig(file, {
    strict: options.strict === true,
    onWarning: (text) => options.warn(`warning: ${text}`),
  });
}
