import { parseConfig } from './parse-config.js';
import type { SwitchboardConfig } from './switchboard-config.js';

/** The detector ("hunter") model when `models.hunter` is unset. */
export const DEFAULT_DETECTOR_MODEL = 'primary-flash';

/** The judge model when `models.judge` is unset; the same model as the detector's. */
export const DEFAULT_JUDGE_MODEL = 'primary-flash';

/** `resolveModels` for a configuration that has been through `parseConfig` (ids already trimmed strings). */
export function modelsOfParsed(config: SwitchboardConfig): [detector: string, judge: string] {
  return [config.models?.hunter || DEFAULT_DETECTOR_MODEL, config.models?.judge || DEFAULT_JUDGE_MODEL];
}

/**
 * The detector and judge model ids: `models.hunter`, else
 * {@link DEFAULT_DETECTOR_MODEL}, then `models.judge`, else {@link DEFAULT_JUDGE_MODEL}.
 * Ids are trimmed; an empty or blank id counts as unset.
 *
 * @throws {ConfigError} when `config` is not a valid configuration (see `parseConfig`).
 */
export function resolveModels(config: SwitchboardConfig = {}): [detector: string, judge: string] {
  return modelsOfParsed(parseConfig(config));
}
