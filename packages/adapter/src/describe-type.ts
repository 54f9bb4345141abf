/** Whether `value` is a plain object (`{}` or `Object.create(null)`): what a JSON or TOML table reads as. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * A short name for the type of a value, as every Switchboard error message names it: `string`, `array`,
 * `null`, `NaN`, `Date`, ... The endpoint's config errors and the CLI's input errors use it too, so a
 * value's type reads the same wherever it is reported.
 */
export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && Number.isNaN(value)) return 'NaN';
  if (typeof value !== 'object') return typeof value;
  if (isPlainObject(value)) return 'object';
  const name: unknown = Object.getPrototypeOf(value)?.constructor?.name;
  return typeof name === 'string' && name !== '' ? name : 'object';
}
