export type { ChatEndpointInit } from './chat-endpoint.js';
export { ChatEndpoint } from './chat-endpoint.js';
export type { ConfigErrorOptions } from './config-error.js';
export { ConfigError } from './config-error.js';
export {
  DEFAULT_DETECTOR_MODEL,
  DEFAULT_JUDGE_MODEL,
  GATEWAY_DEFAULT_BASE_URL,
  PRIMARY_DEFAULT_BASE_URL,
  SCRIPTED_FLAG_ENV,
} from './constants.js';
export { describeType } from './describe-type.js';
export { parseConfig } from './parse-config.js';
export type { ProviderKind } from './provider-kind.js';
export { PROVIDER_KINDS } from './provider-kind.js';
export type {
  ResolutionRule,
  ResolveChatEndpointOptions,
  ResolvedChatEndpoint,
} from './resolve-chat-endpoint.js';
export { resolveChatEndpoint } from './resolve-chat-endpoint.js';
export { resolveModels } from './resolve-models.js';
export type { ModelsConfig, SwitchboardConfig } from './switchboard-config.js';
