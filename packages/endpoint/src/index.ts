export { GATEWAY_DEFAULT_BASE_URL } from './adapter-rules.js';
export type { CassetteOption } from './cassette-setting.js';
export { CASSETTE_MODE_ENV, CASSETTE_PATH_ENV } from './cassette-setting.js';
export type { ChatEndpointInit } from './chat-endpoint.js';
export { ChatEndpoint } from './chat-endpoint.js';
export type { ConfigErrorOptions } from './config-error.js';
export { ConfigError } from './config-error.js';
export type { ConfigWarning } from './config-warnings.js';
export type { ResolutionExplanation, RuleExplanation } from './explain-resolution.js';
export { explainResolution } from './explain-resolution.js';
export { ALLOW_INSECURE_HTTP_ENV, isLoopbackAddress } from './insecure-http.js';
export type { KeyVariableAllowance } from './key-variable.js';
export { isKeyLikeVariable, KEY_VARIABLE_RULE } from './key-variable.js';
export type { LoadConfigOptions } from './load-config.js';
export { DEFAULT_CONFIG_FILE, loadConfig } from './load-config.js';
export type { ParseConfigOptions, ParsedConfig } from './parse-config.js';
export { parseConfig, parseConfigWithWarnings } from './parse-config.js';
export { PRIMARY_DEFAULT_BASE_URL } from './primary-base-url.js';
export type { ProviderKind } from './provider-kind.js';
export { PROVIDER_KINDS } from './provider-kind.js';
export { resolveChatEndpoint } from './resolve-chat-endpoint.js';
export type { ResolveChatEndpointOptions } from './resolve-chat-endpoint-options.js';
export { DEFAULT_DETECTOR_MODEL, DEFAULT_JUDGE_MODEL, resolveModels } from './resolve-models.js';
export type {
  AdapterResolvedChatEndpoint,
  AdapterRule,
  OverrideResolvedChatEndpoint,
  ResolutionRule,
  ResolvedChatEndpoint,
  ScriptedResolvedChatEndpoint,
} from './resolved-chat-endpoint.js';
export { isAdapterResolution } from './resolved-chat-endpoint.js';
export { SCRIPTED_FLAG_ENV } from './scripted-rules.js';
export type {
  ModelPriceConfig,
  ModelsConfig,
  SwitchboardConfig,
  TelemetryConfig,
} from './switchboard-config.js';
