import type { OtelScopeOptions } from './otel-api.js';
import { type OtelConventions, SCHEMA_URL_V1_41 } from './otel-conventions.js';

declare const __SWITCHBOARD_TELEMETRY_VERSION__: string | undefined;

/** The instrumentation scope name of spans and metrics. */
export const INSTRUMENTATION_NAME = '@switchboard/telemetry';

/** The instrumentation scope version: this package's version. */
export const INSTRUMENTATION_VERSION: string =
  typeof __SWITCHBOARD_TELEMETRY_VERSION__ === 'string' ? __SWITCHBOARD_TELEMETRY_VERSION__ : '0.0.0';

/**
 * The scope's schema URL: v1.41.0's in that mode; none in the latest mode, for
 * which the GenAI conventions repository publishes no schema file yet.
 */
export function scopeOptions(conventions: OtelConventions): OtelScopeOptions | undefined {
  return conventions === 'v1.41.0' ? { schemaUrl: SCHEMA_URL_V1_41 } : undefined;
}
