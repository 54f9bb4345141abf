export type { ChatRequest, ToolChoice, ToolDefinition } from './chat-request.js';
export type { EmptyJsonSelector, JsonModeRequest } from './empty-json.js';
export type {
  ErrorInBody,
  FaultPlan,
  FaultRule,
  ModelRejectionWording,
  RedirectFault,
} from './fault-rule.js';
export { ANSWER_TOKENS_HEADER } from './handle-request.js';
export { DEFAULT_MODEL, resolveModelId, SUPPORTED_MODELS } from './models.js';
export { PrefixCache } from './prefix-cache.js';
export type { PromptSource } from './prompt-tokens.js';
export { canonicalMessage, promptTokens } from './prompt-tokens.js';
export type { RecordedRequest } from './recorded-request.js';
export type { CliOptions } from './run-cli.js';
export { CLI_USAGE, runCli } from './run-cli.js';
export type { Emulator, EmulatorOptions } from './start-emulator.js';
export { startEmulator } from './start-emulator.js';
export type { TokenSpan } from './tokenize.js';
export { countTokens, tokenize, tokenSpans, truncateToTokens } from './tokenize.js';
