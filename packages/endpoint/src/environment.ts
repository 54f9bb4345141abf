/** The environment variables a resolution reads; `process.env` by default. Never mutated. */
export type Environment = Readonly<Record<string, string | undefined>>;

/**
 * A variable's value with surrounding whitespace trimmed, or undefined when it is
 * unset, empty or blank: an empty variable counts as unset (CONTRACT, "Edge cases settled").
 */
export function readVariable(environment: Environment, name: string): string | undefined {
  const value = environment[name];
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}
