// Shared through the global symbol registry, so two copies of this package recognise each other's errors.
const MARKER = Symbol.for('switchboard.endpoint.ConfigError');

/** Options of a {@link ConfigError}. */
export interface ConfigErrorOptions {
  /** Where the bad value is: a configuration path such as `models.thinking`, or an environment variable name. */
  path?: string;
  /** The error behind this one, when there is one. */
  cause?: unknown;
}

/**
 * A configuration value or environment variable of the wrong type or form. The
 * message names the path and what was expected, e.g.
 * `models.thinking: expected boolean, got string`; it never contains a key.
 */
export class ConfigError extends Error {
  /** The first bad path: `models.thinking`, `config` for the whole input, or a variable such as `PRIMARY_BASE_URL`. */
  readonly path: string;

  constructor(message: string, options: ConfigErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ConfigError';
    this.path = options.path ?? 'config';
  }

  /** Whether `error` is a ConfigError, also when it comes from another copy of this package. */
  static isInstance(error: unknown): error is ConfigError {
    return error instanceof Error && MARKER in error;
  }
}

Object.defineProperty(ConfigError.prototype, MARKER, { value: true });
