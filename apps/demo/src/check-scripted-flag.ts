import { SCRIPTED_FLAG_ENV } from '@switchboard/endpoint';
import { SCRIPTED_FLAGS } from '@switchboard/scripted';
import { BAD_INPUT_EXIT_CODE, CliError } from './cli-error.js';
import { safeText } from './terminal-text.js';

/**
 * Refuses an unrecognised `SWITCHBOARD_CLIENT` (exit 2, naming the accepted
 * values): the resolver would skip it and, with a provider key set, go live,
 * while the user meant to stay offline. Blank counts as unset, as for the resolver.
 */
export function checkScriptedFlag(env: Record<string, string | undefined>): void {
  const value = env[SCRIPTED_FLAG_ENV];
  if (value === undefined || value.trim() === '') return;
  if (SCRIPTED_FLAGS.has(value.trim().toLowerCase())) return;
  throw new CliError(
    `${SCRIPTED_FLAG_ENV}: unrecognised value ${safeText(JSON.stringify(value))}: expected one of ${[...SCRIPTED_FLAGS].join(', ')} (unset it to call a provider)`,
    BAD_INPUT_EXIT_CODE,
  );
}
