/** The longest string the telemetry puts on a span or metric point (ids, models, roles, routes). */
const MAX_ATTRIBUTE_LENGTH = 256;

/**
 * `value` cut to `max` UTF-16 code units (never splitting a surrogate pair), so a
 * multi-megabyte reply id or model id cannot reach a span or a metric point whole.
 */
export function boundedString(value: string, max = MAX_ATTRIBUTE_LENGTH): string {
  if (value.length <= max) return value;
  const end = isHighSurrogate(value.charCodeAt(max - 1)) ? max - 1 : max;
  return value.slice(0, end);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
