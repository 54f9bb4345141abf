function refuseChange(): never {
  throw new TypeError('SCRIPTED_FLAGS is read-only');
}

/**
 * The values of the scripted flag variable (`SWITCHBOARD_CLIENT`) that select a
 * scripted client, compared after lowercasing and trimming:
 * `scripted`/`script` (a tool call, then findings), `dump`/`dump-only` (the
 * findings alone), `unsafe`/`unsafe-snippet` (a tool call, then findings with an
 * unsafe snippet). The set is frozen: `add`, `delete` and `clear` throw.
 */
export const SCRIPTED_FLAGS: ReadonlySet<string> = (() => {
  const flags = new Set(['scripted', 'script', 'dump', 'dump-only', 'unsafe', 'unsafe-snippet']);
  // Non-enumerable own properties, so the set still compares equal to a plain Set of the same flags.
  for (const method of ['add', 'delete', 'clear']) {
    Object.defineProperty(flags, method, { value: refuseChange, enumerable: false });
  }
  return Object.freeze(flags);
})();
