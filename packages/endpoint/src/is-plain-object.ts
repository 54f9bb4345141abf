/** Whether `value` is a plain object (`{}` or `Object.create(null)`): what a JSON or TOML table reads as. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
