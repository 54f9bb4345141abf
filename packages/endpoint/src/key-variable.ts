/** Which extra variable names code allows `models.chat_api_key_env` to name: a list, or a test. */
export type KeyVariableAllowance = readonly string[] | ((name: string) => boolean);

// Credentials of other tools and platforms that a pipeline's environment commonly holds.
const FOREIGN_PREFIXES = [
  'ACTIONS_',
  'ARM_',
  'AWS_',
  'AZURE_',
  'CI_',
  'DOCKER_',
  'GCP_',
  'GH_',
  'GITHUB_',
  'GITLAB_',
  'GOOGLE_',
  'NODE_AUTH_',
  'NPM_',
  'RUNNER_',
  'SSH_',
  'VAULT_',
];
const FOREIGN_WORDS = ['SECRET', 'PASSWORD', 'PASSWD', 'PRIVATE', 'SESSION'];

/** The rule of {@link isKeyLikeVariable}, as messages and documentation state it. */
export const KEY_VARIABLE_RULE =
  'a name ending in KEY or TOKEN (such as TEAM_API_KEY), without SECRET, PASSWORD, PRIVATE or SESSION, and not a cloud or CI credential (AWS_*, AZURE_*, GOOGLE_*, GITHUB_*, GH_*, NPM_*, CI_*, ...)';

/**
 * Whether `models.chat_api_key_env` may name this variable by default: the
 * configuration file is untrusted, so it may only point at a key meant for a chat
 * endpoint, never at `PATH` or another tool's secret such as `AWS_SECRET_ACCESS_KEY`.
 * Case-insensitive. See {@link KEY_VARIABLE_RULE}.
 */
export function isKeyLikeVariable(name: string): boolean {
  const upper = name.toUpperCase();
  if (!upper.endsWith('KEY') && !upper.endsWith('TOKEN')) return false;
  if (FOREIGN_WORDS.some((word) => upper.includes(word))) return false;
  return !FOREIGN_PREFIXES.some((prefix) => upper.startsWith(prefix));
}

/** Whether the variable may be named: key-like, or allowed by the code. */
export function keyVariableAllowed(name: string, allowance: KeyVariableAllowance | undefined): boolean {
  if (isKeyLikeVariable(name)) return true;
  if (typeof allowance === 'function') return allowance(name) === true;
  return Array.isArray(allowance) && allowance.includes(name);
}
