import { ConfigError } from './config-error.js';
import { type Environment, readVariable } from './environment.js';

/** The variable that turns a cassette on for CI: `record` or `replay`. */
export const CASSETTE_MODE_ENV = 'SWITCHBOARD_CASSETTE';
/** The variable naming the cassette file. */
export const CASSETTE_PATH_ENV = 'SWITCHBOARD_CASSETTE_PATH';

/** The `cassette` option of `resolveChatEndpoint`: wrap the resolved route's transport in a cassette. */
export interface CassetteOption {
  /** `record`: every call goes to the provider and is written to `path`. `replay`: calls are answered from `path`. */
  mode: 'record' | 'replay';
  /** The cassette file (JSON Lines). */
  path: string;
  /** In replay: `strict` (default) fails a call with no recording; `passthrough` sends it and appends it. */
  misses?: 'strict' | 'passthrough';
  /** In replay: `fast` (default) or `recorded` delays. */
  timing?: 'recorded' | 'fast';
  /** In replay: price the calls with today's prices instead of the ones the cassette was costed at. */
  reprice?: boolean;
}

/**
 * A cassette to use, where its path came from (for messages), and the environment resolution read
 * (a recorder takes the run, `SWITCHBOARD_CASSETTE_RUN`, and the secret variables to remove from it).
 */
export type CassetteSetting = CassetteOption & { readonly source: string; readonly env: Environment };

/**
 * The cassette to use: the option when given, else `SWITCHBOARD_CASSETTE`
 * (`record` | `replay`, case and spaces aside) with `SWITCHBOARD_CASSETTE_PATH`;
 * null when neither is set.
 *
 * @throws {ConfigError} naming the option or variable that is wrong.
 */
export function cassetteSetting(option: unknown, environment: Environment): CassetteSetting | null {
  if (option !== undefined && option !== null)
    return { ...checkedOption(option), source: 'options.cassette.path', env: environment };
  const mode = readVariable(environment, CASSETTE_MODE_ENV)?.toLowerCase();
  if (mode === undefined) return null;
  if (mode !== 'record' && mode !== 'replay') {
    throw new ConfigError(`${CASSETTE_MODE_ENV}: expected record or replay, got ${JSON.stringify(mode)}`, {
      path: CASSETTE_MODE_ENV,
    });
  }
  const path = readVariable(environment, CASSETTE_PATH_ENV);
  if (path === undefined) {
    throw new ConfigError(
      `${CASSETTE_PATH_ENV}: expected the cassette file's path, as ${CASSETTE_MODE_ENV} is set`,
      {
        path: CASSETTE_PATH_ENV,
      },
    );
  }
  return { mode, path, source: CASSETTE_PATH_ENV, env: environment };
}

function checkedOption(option: unknown): CassetteOption {
  const fail = (field: string, expected: string): never => {
    throw new ConfigError(`options.cassette${field}: expected ${expected}`, {
      path: `options.cassette${field}`,
    });
  };
  if (typeof option !== 'object' || option === null) return fail('', 'an object {mode, path}');
  const { mode, path, misses, timing, reprice } = option as Record<string, unknown>;
  if (mode !== 'record' && mode !== 'replay') fail('.mode', "'record' or 'replay'");
  if (typeof path !== 'string' || path.trim() === '') fail('.path', 'a non-empty file path');
  if (misses !== undefined && misses !== 'strict' && misses !== 'passthrough')
    fail('.misses', "'strict' or 'passthrough'");
  if (timing !== undefined && timing !== 'recorded' && timing !== 'fast')
    fail('.timing', "'recorded' or 'fast'");
  if (reprice !== undefined && typeof reprice !== 'boolean') fail('.reprice', 'a boolean');
  return option as CassetteOption;
}
