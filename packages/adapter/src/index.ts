export { BaseUrlError, type ParseBaseUrlOptions, parseBaseUrl } from './base-url.js';
export type {
  AttemptHandle,
  AttemptInfo,
  AttemptOutcome,
  CallObserver,
  ObservedEndpoint,
} from './call-observer.js';
export type { CallRecord } from './call-record.js';
export { type AdapterListModelsOptions, ChatAdapter, type ChatAdapterOptions } from './chat-adapter.js';
export type { ChatClient, ChatMessage, CompleteRequest, ReasoningFields, ToolSchema } from './chat-client.js';
export { ChatError, type ChatErrorOptions } from './chat-error.js';
export type { ChatErrorKind } from './chat-error-kind.js';
export type { ChatLogprobs, ChatResponse, ToolCall } from './chat-response.js';
export { chatResponseFromMessage } from './chat-response-from-message.js';
export type { ChatDelta, ChatStream } from './chat-stream.js';
export type {
  ChatTransport,
  TransportRequest,
  TransportStream,
  TransportStreamEvent,
} from './chat-transport.js';
export type { CallPricing, CostModel, PricedCall, PriceSource } from './cost-model.js';
export { describeType } from './describe-type.js';
export type { FinishReason } from './finish-reason.js';
export { ModelRejectedError, type ModelRejectedErrorOptions } from './model-rejected-error.js';
export { type ListModelsOptions, OpenAITransport, type OpenAITransportOptions } from './openai-transport.js';
export type { ReasoningDetail } from './reasoning-detail.js';
export { toAssistantMessage } from './to-assistant-message.js';
export { UNPRICED_MODEL_WARNING } from './unpriced-warning.js';
export type { UsageEntry } from './usage-entry.js';
