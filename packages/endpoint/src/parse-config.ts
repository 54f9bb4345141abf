import { describeType } from '@switchboard/adapter';
import type { core } from 'zod';
import { checkBaseUrl } from './check-base-url.js';
import { ConfigError } from './config-error.js';
import { pathText } from './config-path.js';
import { markWarned } from './config-warning-sink.js';
import { type ConfigWarning, configWarnings, shadowedPriceWarnings } from './config-warnings.js';
import { futureCheckedDate } from './future-checked-date.js';
import { isPlainObject } from './is-plain-object.js';
import { loadZod } from './load-zod.js';
import type { SwitchboardConfig } from './switchboard-config.js';

const ENVIRONMENT_VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
// The shape of the OpenTelemetry GenAI conventions' `gen_ai.provider.name` values.
const GEN_AI_PROVIDER_NAME = /^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$/;

// zod is loaded on the first check, so importing this package stays light.
function buildSchema() {
  const { z } = loadZod();
  // An empty (or blank) address counts as unset, like an empty environment variable.
  const chatBaseUrl = z
    .string()
    .trim()
    .superRefine((value, context) => {
      if (value === '') return;
      const checked = checkBaseUrl(value, { name: 'models.chat_base_url' });
      if ('reason' in checked) context.addIssue({ code: 'custom', message: checked.reason });
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

  // The shape of the OpenTelemetry GenAI conventions' `gen_ai.provider.name` values.
  const providerName = z
    .string()
    .max(64, { error: 'expected at most 64 characters' })
    .regex(GEN_AI_PROVIDER_NAME, {
      error:
        "expected a gen_ai.provider.name value as the OpenTelemetry GenAI conventions list it (lowercase words joined by '.')",
    });

  // z.number() already refuses NaN and the infinities.
  const pricePerMillion = z.number().min(0, { error: 'expected a finite number >= 0' });

  const tiers = z
    .array(
      z.looseObject({
        above_input_tokens: z.number().refine((tokens) => Number.isSafeInteger(tokens) && tokens >= 0, {
          error: 'expected a whole number of tokens >= 0',
        }),
        cache_hit_per_m: pricePerMillion,
        input_per_m: pricePerMillion,
        output_per_m: pricePerMillion,
      }),
    )
    .superRefine((tiers, context) => {
      tiers.forEach((tier, index) => {
        const before = tiers[index - 1]?.above_input_tokens;
        if (before !== undefined && tier.above_input_tokens <= before)
          context.addIssue({
            code: 'custom',
            path: [index, 'above_input_tokens'],
            message: `expected tiers in ascending order of above_input_tokens, each threshold once (${tier.above_input_tokens} after ${before})`,
          });
      });
    });
  // A TOML date (checked_at = 2026-11-20) or a string holding one.
  const checkedAt = z
    .custom<string | Date>((value) => isIsoDate(value), {
      error: "expected an ISO date ('YYYY-MM-DD', or a TOML date such as 2026-11-20)",
    })
    .superRefine((value, context) => {
      if (!isIsoDate(value)) return;
      const future = futureCheckedDate(calendarDate(value));
      if (future !== null) context.addIssue({ code: 'custom', message: future });
    });
  const source = z.string().trim().min(1, { error: 'expected a non-empty string' });
  // [[prices."id".tariffs]]: a dated change, in force from effective_from; its prices unless it is cancelled.
  const tariff = z
    .looseObject({
      effective_from: z.custom<string | Date>((value) => isInstant(value), {
        error: 'expected a TOML date (00:00 UTC) or date-time with its offset, or such an ISO string',
      }),
      cache_hit_per_m: pricePerMillion.optional(),
      input_per_m: pricePerMillion.optional(),
      output_per_m: pricePerMillion.optional(),
      tiers: tiers.optional(),
      checked_at: checkedAt.optional(),
      source: source.optional(),
      cancelled: z.boolean().optional(),
    })
    .superRefine((change, context) => {
      if (change.cancelled === true) return;
      for (const key of ['cache_hit_per_m', 'input_per_m', 'output_per_m'] as const) {
        if (change[key] === undefined)
          context.addIssue({
            code: 'custom',
            path: [key],
            message: 'expected a finite number >= 0 (or cancelled = true)',
          });
      }
    });

  // Known keys are checked; unknown keys and sections pass through unchanged (and are warned about).
  return z.looseObject({
    models: z
      .looseObject({
        chat_base_url: chatBaseUrl.optional(),
        chat_api_key_env: chatApiKeyEnv.optional(),
        thinking: z.boolean().optional(),
        hunter: z.string().trim().optional(),
        judge: z.string().trim().optional(),
      })
      .optional(),
    prices: z
      .record(
        z.string(),
        z.looseObject({
          cache_hit_per_m: pricePerMillion,
          input_per_m: pricePerMillion,
          output_per_m: pricePerMillion,
          tiers: tiers.optional(),
          checked_at: checkedAt.optional(),
          source: source.optional(),
          tariffs: z.array(tariff).optional(),
        }),
      )
      .optional(),
    pricing: z
      .looseObject({
        stale_after_days: z
          .custom<number>((value) => typeof value === 'number' && value >= 0, {
            error: 'expected a number of days >= 0 (inf: never stale)',
          })
          .optional(),
      })
      .optional(),
    telemetry: z
      .looseObject({
        provider_name: z
          .union(
            [
              providerName,
              z.strictObject({
                primary: providerName.optional(),
                gateway: providerName.optional(),
                custom: providerName.optional(),
              }),
            ],
            {
              error:
                'expected a gen_ai.provider.name string, or a table of them by provider (primary, gateway, custom)',
            },
          )
          .optional(),
      })
      .optional(),
  });
}

let schema: ReturnType<typeof buildSchema> | undefined;

function configSchema(): ReturnType<typeof buildSchema> {
  schema ??= buildSchema();
  return schema;
}

/** The calendar date of a checked `checked_at`: the string, or a TOML date's day as written. */
function calendarDate(value: string | Date): string {
  return typeof value === 'string' ? value : value.toISOString().slice(0, 10);
}

/** Whether a value is a valid `Date` (a TOML date or date-time) or an ISO date, or date-time with its offset. */
function isInstant(value: unknown): boolean {
  // A TOML date-time without an offset writes none in its ISO text either: refused, as it depends on the zone.
  const text = value instanceof Date && !Number.isNaN(value.getTime()) ? value.toISOString() : value;
  if (typeof text !== 'string') return false;
  if (!text.includes('T')) return isIsoDate(text);
  return (
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i.test(text) &&
    isIsoDate(text.slice(0, 10))
  );
}

/** Whether a value is an ISO date (`'YYYY-MM-DD'` that reads back as itself) or a valid `Date` (a TOML date). */
function isIsoDate(value: unknown): boolean {
  if (value instanceof Date) return !Number.isNaN(value.getTime());
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const time = Date.parse(`${value}T00:00:00Z`);
  return !Number.isNaN(time) && new Date(time).toISOString().slice(0, 10) === value;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

// TOML's own spellings of the numbers a price cannot be.
function nonFiniteText(value: number): string {
  return Number.isNaN(value) ? 'nan' : value > 0 ? 'inf' : '-inf';
}

function issueText(issue: core.$ZodIssue, input: unknown): string {
  const path = pathText(issue.path);
  if (issue.code === 'invalid_type') {
    if (isMissing(input, issue.path)) return `${path}: missing (expected ${issue.expected})`;
    const value = valueAt(input, issue.path);
    // z.number() refuses inf and nan as "not a number", which they are, as far as a price goes.
    if (issue.expected === 'number' && typeof value === 'number')
      return `${path}: expected a finite number, got ${nonFiniteText(value)}`;
    return `${path}: expected ${issue.expected}, got ${describeType(valueAt(input, issue.path))}`;
  }
  return `${path}: ${issue.message}`;
}

/** Whether the key at the end of `path` is absent from the table that holds it. */
function isMissing(input: unknown, path: readonly PropertyKey[]): boolean {
  const key = path.at(-1);
  if (key === undefined) return false;
  const table = valueAt(input, path.slice(0, -1));
  return isPlainObject(table) && !Object.hasOwn(table, key);
}

/**
 * The message of a configuration that failed its checks: every issue, each missing key
 * followed by the unknown keys of the same table that look like it (the likely misspelling:
 * `output_per_m: missing`, then `outptu_per_m: unknown key, did you mean "output_per_m"?`),
 * then the other warnings, which a refused configuration would otherwise hide.
 */
function failureText(issues: readonly core.$ZodIssue[], input: unknown, warnings: readonly ConfigWarning[]) {
  const told = new Set<ConfigWarning>();
  const parts = issues.map((issue) => {
    const text = issueText(issue, input);
    const key = issue.path.at(-1);
    if (issue.code !== 'invalid_type' || typeof key !== 'string' || !isMissing(input, issue.path))
      return text;
    const table = issue.path.slice(0, -1);
    const value = valueAt(input, table);
    const siblings = new Set(
      isPlainObject(value) ? Object.keys(value).map((sibling) => pathText([...table, sibling])) : [],
    );
    const near = warnings.filter(
      (warning) => !told.has(warning) && warning.suggestion === key && siblings.has(warning.path),
    );
    for (const warning of near) told.add(warning);
    return [text, ...near.map((warning) => warning.message)].join('; ');
  });
  return [
    ...parts,
    ...warnings.filter((warning) => !told.has(warning)).map((warning) => warning.message),
  ].join('; ');
}

// Zod takes any object for an object schema; configuration comes from JSON or TOML, so only plain objects are.
function shapeError(input: unknown): ConfigError | null {
  const candidates: Array<[readonly PropertyKey[], unknown]> = [[[], input]];
  if (isPlainObject(input)) {
    candidates.push(
      [['models'], input.models],
      [['prices'], input.prices],
      [['pricing'], input.pricing],
      [['telemetry'], input.telemetry],
    );
    const prices = input.prices;
    if (isPlainObject(prices)) {
      // Zod skips this key of a record without checking it; a price must never vanish unnoticed.
      if (Object.hasOwn(prices, '__proto__')) {
        return new ConfigError('prices."__proto__": expected a model id, got a reserved name', {
          path: 'prices."__proto__"',
        });
      }
      for (const model of Object.keys(prices)) {
        // A blank id prices nothing (ids are trimmed): a price that would vanish unnoticed.
        if (model.trim() === '') {
          const text = pathText(['prices', model]);
          return new ConfigError(
            `${text}: expected a model id, got ${model === '' ? 'an empty one' : 'a blank one'}`,
            { path: text },
          );
        }
        const entry = prices[model];
        candidates.push([['prices', model], entry]);
        for (const list of ['tiers', 'tariffs']) {
          const items = isPlainObject(entry) ? entry[list] : undefined;
          if (Array.isArray(items)) {
            for (const [index, item] of items.entries())
              candidates.push([['prices', model, list, index], item]);
          }
        }
      }
    }
  }
  for (const [path, value] of candidates) {
    if (typeof value === 'object' && value !== null && !Array.isArray(value) && !isPlainObject(value)) {
      const text = pathText(path);
      return new ConfigError(`${text}: expected object, got ${describeType(value)}`, { path: text });
    }
  }
  return null;
}

/** Options of {@link parseConfig} and {@link parseConfigWithWarnings}. */
export interface ParseConfigOptions {
  /** Make every warning (an unknown key inside `models`, a models key at the top level, ...) an error; default false. */
  strict?: boolean;
}

/** A checked configuration and what looked wrong in it. */
export interface ParsedConfig {
  /** The configuration, as {@link parseConfig} returns it. */
  config: SwitchboardConfig;
  /** Unknown keys inside `models` or a `prices` entry, and top-level keys that look like models keys or sections. */
  warnings: ConfigWarning[];
}

/**
 * {@link parseConfig}, also returning warnings: an unknown key inside `models`
 * (`models.thinkng: unknown key, did you mean "thinking"?`) or inside a `prices` entry, a
 * models key at the top level (no `[models]` header above it), a top-level key near `models` or
 * `prices`. With `strict`, warnings are errors instead.
 *
 * @throws {ConfigError} as {@link parseConfig} does; with `strict`, also naming every warning.
 */
export function parseConfigWithWarnings(input: unknown, options: ParseConfigOptions = {}): ParsedConfig {
  const parsed = checkConfig(input, options);
  // The caller holds the warnings now: resolving this configuration does not repeat them.
  markWarned(parsed.config);
  return parsed;
}

function checkConfig(input: unknown, options: ParseConfigOptions): ParsedConfig {
  let result: ReturnType<ReturnType<typeof buildSchema>['safeParse']>;
  let warnings: ConfigWarning[];
  try {
    const badShape = shapeError(input);
    if (badShape !== null) throw badShape;
    result = configSchema().safeParse(input);
    // Also when the checks failed: a misspelled key is why a required one is missing.
    warnings = isPlainObject(input) ? configWarnings(input) : [];
  } catch (error) {
    if (ConfigError.isInstance(error)) throw error;
    // A hand-made object whose getter or proxy trap throws: still a ConfigError, never that error itself.
    throw new ConfigError(`config: could not be read: reading it threw ${describeType(error)}`, {
      path: 'config',
      cause: error,
    });
  }
  if (!result.success) {
    const issues = result.error.issues;
    throw new ConfigError(failureText(issues, input, warnings), {
      path: pathText(issues[0]?.path ?? []),
      cause: result.error,
    });
  }
  const first = warnings[0];
  if (options?.strict === true && first !== undefined) {
    throw new ConfigError(warnings.map((warning) => warning.message).join('; '), { path: first.path });
  }
  // A price that replaces a shipped one is said, never refused: it may be a negotiated price.
  const config = result.data as SwitchboardConfig;
  return { config, warnings: [...warnings, ...shadowedPriceWarnings(config as Record<string, unknown>)] };
}

/**
 * Checks a configuration and returns it with surrounding whitespace
 * trimmed from `models.chat_base_url`, `models.hunter` and `models.judge`.
 * Unknown keys inside `models` and sections other than `models` and `prices` pass
 * through unchanged (see {@link parseConfigWithWarnings} for the warnings about them).
 *
 * @throws {ConfigError} naming every bad path and what was expected, e.g.
 *   `models.thinking: expected boolean, got string` (several joined with `'; '`): for
 *   input that is not a plain object, a value of the wrong type, a `chat_base_url`
 *   that `parseBaseUrl` refuses (not an absolute http(s) URL; credentials, never echoed;
 *   a query or fragment) or that is a primary address with a version path such as `/v1`
 *  , a `chat_api_key_env` that is not an environment variable name, a
 *   `prices` entry whose `cache_hit_per_m`, `input_per_m` or `output_per_m` is not a
 *   finite number >= 0 (`prices."primary-flash".input_per_m: expected number, got string`),
 *   an object that throws when read, and, with `strict`, every warning.
 */
export function parseConfig(input: unknown, options: ParseConfigOptions = {}): SwitchboardConfig {
  return checkConfig(input, options).config;
}
