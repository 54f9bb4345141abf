export type { BilledRequest, EmulatorBill } from './billing/bill-types.js';
export type * from './chat/chat-request.js';
export type { EmptyJsonSelector, JsonModeRequest } from './chat/empty-json.js';
export { DEFAULT_MODEL, resolveModelId, SUPPORTED_MODELS } from './chat/models.js';
export type {
  ErrorInBody,
  FaultPlan,
  FaultRule,
  ListingFault,
  ModelRejectionWording,
  RedirectFault,
  StreamFault,
} from './faults/fault-rule.js';
export type { EmulatorFlavor } from './gateway/emulator-flavor.js';
export {
  GATEWAY_PRICES,
  type GatewayPrice,
  type GatewayTokens,
  gatewayCost,
} from './gateway/gateway-prices.js';
export { MAX_JSON_DEPTH } from './http/read-body.js';
export type { RecordedRequest } from './http/recorded-request.js';
export { ANSWER_TOKENS_HEADER, MAX_ANSWER_TOKENS } from './server/answer-request.js';
export type * from './server/emulator-options.js';
export { CLI_USAGE, type CliOptions, runCli } from './server/run-cli.js';
export { type Emulator, startEmulator } from './server/start-emulator.js';
export { PrefixCache } from './tokens/prefix-cache.js';
export { canonicalMessage, type PromptSource, promptTokens } from './tokens/prompt-tokens.js';
export { countTokens, type TokenSpan, tokenize, tokenSpans, truncateToTokens } from './tokens/tokenize.js';
