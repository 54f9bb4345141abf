import { type core, z } from 'zod';
import { ConfigError } from './config-error.js';
import { PRIMARY_DEFAULT_BASE_URL } from './constants.js';
import { describeType } from './describe-type.js';
import { endsWithVersionPath, hasCredentials, isAbsoluteHttpUrl } from './http-url.js';
import { providerOf } from './provider-of.js';
import type { SwitchboardConfig } from './switchboard-config.js';

const ENVIRONMENT_VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

// An empty (or blank) address counts as unset, like an empty environment variable.
const chatBaseUrl = z
  .string()
  .trim()
  .superRefine((value, context) => {
    if (value === '') return;
    if (hasCredentials(value)) {
      // fetch refuses such an address, and the value is not echoed: it holds a secret.
      context.addIssue({
        code: 'custom',
        message: 'expected an absolute http(s) URL without credentials (user:password@), got one with them',
      });
    } else if (!isAbsoluteHttpUrl(value)) {
      context.addIssue({
        code: 'custom',
        message: `expected an absolute http(s) URL, got ${JSON.stringify(value)}`,
      });
    } else if (providerOf(value) === 'primary' && endsWithVersionPath(value)) {
      // Spec 7 and 9.1: the primary platform uses unversioned addresses and rejects a version path.
      context.addIssue({
        code: 'custom',
        message: `expected an address without a version path (the primary platform rejects one, e.g. ${PRIMARY_DEFAULT_BASE_URL}), got ${JSON.stringify(value)}`,
      });
    }
  });

// The value is never echoed: a key pasted here by mistake must not end up in a message.
const chatApiKeyEnv = z.string().superRefine((value, context) => {
  if (value === '' || ENVIRONMENT_VARIABLE_NAME.test(value)) return;
  const got =
    value.trim() === ''
      ? 'a blank string'
      : /\s/.test(value)
        ? 'a string containing whitespace'
        : 'a string with other characters';
  context.addIssue({
    code: 'custom',
    message: `expected an environment variable name (letters, digits and _, not starting with a digit), got ${got}`,
  });
});

// Known keys are checked; unknown keys and sections pass through unchanged.
const switchboardConfigSchema = z.looseObject({
  models: z
    .looseObject({
      chat_base_url: chatBaseUrl.optional(),
      chat_api_key_env: chatApiKeyEnv.optional(),
      thinking: z.boolean().optional(),
      hunter: z.string().trim().optional(),
      judge: z.string().trim().optional(),
    })
    .optional(),
});

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function pathText(path: readonly PropertyKey[]): string {
  if (path.length === 0) return 'config';
  return path
    .map((key, index) => (typeof key === 'number' ? `[${key}]` : `${index === 0 ? '' : '.'}${String(key)}`))
    .join('');
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function issueText(issue: core.$ZodIssue, input: unknown): string {
  const path = pathText(issue.path);
  if (issue.code === 'invalid_type') {
    return `${path}: expected ${issue.expected}, got ${describeType(valueAt(input, issue.path))}`;
  }
  return `${path}: ${issue.message}`;
}

// Zod takes any object for an object schema; configuration comes from JSON or TOML, so only plain objects are.
function notPlainObject(input: unknown): ConfigError | null {
  const candidates: Array<[readonly string[], unknown]> = [[[], input]];
  if (isPlainObject(input)) candidates.push([['models'], input.models]);
  for (const [path, value] of candidates) {
    if (typeof value === 'object' && value !== null && !Array.isArray(value) && !isPlainObject(value)) {
      const text = pathText(path);
      return new ConfigError(`${text}: expected object, got ${describeType(value)}`, { path: text });
    }
  }
  return null;
}

/**
 * Checks a configuration (spec 2.4) and returns it with surrounding whitespace
 * trimmed from `models.chat_base_url`, `models.hunter` and `models.judge`.
 * Unknown keys inside `models` and sections other than `models` pass through unchanged.
 *
 * @throws {ConfigError} naming every bad path and what was expected, e.g.
 *   `models.thinking: expected boolean, got string` (several joined with `'; '`): for
 *   input that is not a plain object, a value of the wrong type, a `chat_base_url`
 *   that is not an absolute http(s) URL, carries credentials (`user:password@`, never
 *   echoed) or is a primary address with a version path such as `/v1` (spec 7, 9.1),
 *   a `chat_api_key_env` that is not an environment variable name, and an object
 *   that throws when read.
 */
export function parseConfig(input: unknown): SwitchboardConfig {
  let result: ReturnType<typeof switchboardConfigSchema.safeParse>;
  try {
    const shapeError = notPlainObject(input);
    if (shapeError !== null) throw shapeError;
    result = switchboardConfigSchema.safeParse(input);
  } catch (error) {
    if (ConfigError.isInstance(error)) throw error;
    // A hand-made object whose getter or proxy trap throws: still a ConfigError, never that error itself.
    throw new ConfigError(`config: could not be read: reading it threw ${describeType(error)}`, {
      path: 'config',
      cause: error,
    });
  }
  if (result.success) return result.data;
  const issues = result.error.issues;
  throw new ConfigError(issues.map((issue) => issueText(issue, input)).join('; '), {
    path: pathText(issues[0]?.path ?? []),
    cause: result.error,
  });
}
