import fc from 'fast-check';

/** Any value a usage entry's token field may hold: numbers of every kind, strings, null, small JSON. */
export const looseTokenValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.string(),
  fc.constant(null),
  fc.jsonValue({ maxDepth: 1 }),
);

/**
 * Usage entries as a reply may carry them: any subset of the four token fields,
 * each holding a loose value, or else a value of `otherwise` (e.g. any JSON).
 */
export function nearUsage(otherwise: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.record(
      {
        prompt_tokens: looseTokenValue,
        completion_tokens: looseTokenValue,
        prompt_cache_hit_tokens: looseTokenValue,
        prompt_cache_miss_tokens: looseTokenValue,
      },
      { requiredKeys: [] },
    ),
    otherwise,
  );
}
