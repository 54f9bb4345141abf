/**
 * Which GenAI semantic conventions the OpenTelemetry observer follows:
 * `v1.41.0`, the last core release of open-telemetry/semantic-conventions with
 * the GenAI model (the default), or `gen_ai_latest_experimental`, the current
 * conventions of open-telemetry/semantic-conventions-genai.
 */
export type OtelConventions = 'v1.41.0' | 'gen_ai_latest_experimental';

/** The convention's own switch: a comma-separated list; `gen_ai_latest_experimental` selects the current names. */
export const STABILITY_OPT_IN_ENV = 'OTEL_SEMCONV_STABILITY_OPT_IN';

/** The schema URL of the v1.41.0 mode's instrumentation scope. */
export const SCHEMA_URL_V1_41 = 'https://opentelemetry.io/schemas/1.41.0';

/**
 * The schema URL of the latest mode's scope: the development schema that
 * open-telemetry/semantic-conventions-genai declares in its model/manifest.yaml
 * (the repository has no release yet).
 */
export const SCHEMA_URL_GEN_AI_DEV = 'https://opentelemetry.io/schemas/gen-ai-dev/1.42.0-dev';

const MODES: readonly OtelConventions[] = ['v1.41.0', 'gen_ai_latest_experimental'];

/**
 * The conventions an observer follows: `option` when given, else
 * `gen_ai_latest_experimental` when `OTEL_SEMCONV_STABILITY_OPT_IN` lists it,
 * else `v1.41.0`.
 */
export function conventionsOf(
  option: unknown,
  env: Record<string, string | undefined> = process.env,
): OtelConventions {
  if (option !== undefined) {
    if (!MODES.includes(option as OtelConventions)) {
      throw new TypeError(
        `options.conventions must be 'v1.41.0' or 'gen_ai_latest_experimental', got ${JSON.stringify(option)}`,
      );
    }
    return option as OtelConventions;
  }
  const optIn = (env[STABILITY_OPT_IN_ENV] ?? '').split(',').map((value) => value.trim());
  return optIn.includes('gen_ai_latest_experimental') ? 'gen_ai_latest_experimental' : 'v1.41.0';
}
