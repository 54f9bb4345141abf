const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A configuration path as messages show it: `models.thinking`, `prices."primary-flash".input_per_m`,
 * `config` for the whole input. Keys that are not identifiers are quoted (control characters escaped).
 */
export function pathText(path: readonly PropertyKey[]): string {
  if (path.length === 0) return 'config';
  return path
    .map((key, index) => {
      if (typeof key === 'number') return `[${key}]`;
      const text = String(key);
      return `${index === 0 ? '' : '.'}${IDENTIFIER.test(text) ? text : JSON.stringify(text)}`;
    })
    .join('');
}
