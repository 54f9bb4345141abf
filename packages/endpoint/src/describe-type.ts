/** A short name for the type of a value, as used in error messages: `string`, `array`, `null`, `Date`, ... */
export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && Number.isNaN(value)) return 'NaN';
  if (typeof value !== 'object') return typeof value;
  const prototype = Object.getPrototypeOf(value);
  if (prototype === Object.prototype || prototype === null) return 'object';
  const name: unknown = prototype?.constructor?.name;
  return typeof name === 'string' && name !== '' ? name : 'object';
}
