import type { SwitchboardConfig } from '@switchboard/endpoint';

/**
 * For the configured route, which sends the key of
 * `models.chat_api_key_env` (or `PRIMARY_API_KEY`) and none when that variable
 * is unset or blank: a warning naming the variable, or null when it is set.
 */
export function unsetKeyWarning(
  config: SwitchboardConfig,
  env: Record<string, string | undefined>,
): string | null {
  const named = config.models?.chat_api_key_env;
  const variable = named || 'PRIMARY_API_KEY';
  if ((env[variable] ?? '').trim() !== '') return null;
  const source = named
    ? `models.chat_api_key_env names ${variable}, which`
    : `${variable} (the default key variable)`;
  return `warning: ${source} is unset: calls will be sent without a key and fail with 401`;
}
