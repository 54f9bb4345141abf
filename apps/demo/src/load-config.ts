import { existsSync } from 'node:fs';
import { DEFAULT_CONFIG_FILE, loadConfig, type SwitchboardConfig } from '@switchboard/endpoint';
import { ReplacedPrices } from './replaced-prices.js';

/**
 * How the CLI loads its configuration: warnings become `warning: <file>: ...` lines, `strict` refuses
 * them; the notices of replaced prices are held back (see {@link ReplacedPrices}).
 */
export interface CliConfigOptions {
  /** Make each warning an error (exit 2). */
  strict?: boolean;
  /** Where warnings go (one line each, without a trailing newline). */
  warn: (text: string) => void;
}

/** The configuration a command runs with, and the file it came from. */
export interface CliConfig {
  readonly config: SwitchboardConfig;
  /**
   * The file read: `--config FILE`, else `switchboard.toml` when the working directory has
   * one (as `loadConfig()` reads it); null when there was none (the configuration is empty).
   */
  readonly file: string | null;
  /** Whether the file was read by default, not named with `--config`. */
  readonly byDefault: boolean;
  /** The notices of `[prices."id"]` entries that replace shipped prices, said where those prices are used. */
  readonly replacedPrices: ReplacedPrices;
}

/**
 * The configuration, read by the library's `loadConfig` (TOML, or JSON by extension; its
 * `ConfigError`s exit 2): `--config FILE`, else `./switchboard.toml` when there is one, as
 * `loadConfig()` does in code; else an empty configuration.
 */
export async function loadCliConfig(file: string | undefined, options: CliConfigOptions): Promise<CliConfig> {
  const byDefault = file === undefined;
  const replacedPrices = new ReplacedPrices();
  const path = file ?? (existsSync(DEFAULT_CONFIG_FILE) ? DEFAULT_CONFIG_FILE : null);
  if (path === null) return { config: {}, file: null, byDefault, replacedPrices };
  const config = await loadConfig(path, {
    strict: options.strict === true,
    // A replaced price is no mistake: said by the commands that price with it, not by every command.
    onWarning: (text, warning) => {
      if (warning.replacedPrice === undefined) options.warn(`warning: ${text}`);
      else replacedPrices.hold(warning.replacedPrice, `warning: ${text}`);
    },
  });
  return { config, file: path, byDefault, replacedPrices };
}
