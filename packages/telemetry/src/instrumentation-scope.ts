import type { OtelScopeOptions } from './otel-api.js';
import { type OtelConventions, SCHEMA_URL_GEN_AI_DEV, SCHEMA_URL_V1_41 } from './otel-conventions.js';

declare const __SWITCHBOARD_TELEMETRY_VERSION__: string | undefined;

/** The instrumentation scope name of spans and metrics. */
export const INSTRUMENTATION_NAME = '@switchboard/telemetry';

/** The instrumentation scope version: this package's version. */
export const INSTRUMENTATION_VERSION: string =
  typeof __SWITCHBOARD_TELEMETRY_VERSION__ === 'string' ? __SWITCHBOARD_TELEMETRY_VERSION__ : '0.0.0';

/** The scope's schema URL: the conventions' of each mode. */
export function scopeOptions(conventions: OtelConventions): OtelScopeOptions {
  return { schemaUrl: conventions === 'v1.41.0' ? SCHEMA_URL_V1_41 : SCHEMA_URL_GEN_AI_DEV };
}
