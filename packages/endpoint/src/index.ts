export { GATEWAY_DEFAULT_BASE_URL } from './adapter-rules.js';
export { CASSETTE_MODE_ENV, CASSETTE_PATH_ENV, type CassetteOption } from './cassette-setting.js';
export { ChatEndpoint, type ChatEndpointInit } from './chat-endpoint.js';
export { ConfigError, type ConfigErrorOptions } from './config-error.js';
export type { ConfigWarning } from './config-warnings.js';
export { explainResolution, type ResolutionExplanation, type RuleExplanation } from './explain-resolution.js';
export { ALLOW_INSECURE_HTTP_ENV, isLoopbackAddress } from './insecure-http.js';
export { isKeyLikeVariable, KEY_VARIABLE_RULE, type KeyVariableAllowance } from './key-variable.js';
export { DEFAULT_CONFIG_FILE, type LoadConfigOptions, loadConfig } from './load-config.js';
export {
  type ParseConfigOptions,
  type ParsedConfig,
  parseConfig,
  parseConfigWithWarnings,
} from './parse-config.js';
export { PRIMARY_DEFAULT_BASE_URL } from './primary-base-url.js';
export { PROVIDER_KINDS, type ProviderKind } from './provider-kind.js';
export { resolveChatEndpoint } from './resolve-chat-endpoint.js';
export type * from './resolve-chat-endpoint-options.js';
export { DEFAULT_DETECTOR_MODEL, DEFAULT_JUDGE_MODEL, resolveModels } from './resolve-models.js';
export type * from './resolved-chat-endpoint.js';
export { isAdapterResolution } from './resolved-chat-endpoint.js';
export { SCRIPTED_FLAG_ENV } from './scripted-rules.js';
export type * from './switchboard-config.js';
