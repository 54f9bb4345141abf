export type { ParseBaseUrlOptions } from './base-url.js';
export { BaseUrlError, parseBaseUrl } from './base-url.js';
export type { AttemptHandle, AttemptInfo, AttemptOutcome, CallObserver } from './call-observer.js';
export type { CallRecord } from './call-record.js';
export type { AdapterListModelsOptions, ChatAdapterOptions } from './chat-adapter.js';
export { ChatAdapter } from './chat-adapter.js';
export type { ChatClient, ChatMessage, CompleteRequest, ReasoningFields, ToolSchema } from './chat-client.js';
export type { ChatErrorKind, ChatErrorOptions } from './chat-error.js';
export { ChatError } from './chat-error.js';
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
export { describeType, isPlainObject } from './describe-type.js';
export type { ModelRejectedErrorOptions } from './model-rejected-error.js';
export { ModelRejectedError } from './model-rejected-error.js';
export type { ListModelsOptions, OpenAITransportOptions } from './openai-transport.js';
export { OpenAITransport } from './openai-transport.js';
export { isRecord } from './read-field.js';
export { toAssistantMessage } from './to-assistant-message.js';
export type { UsageEntry } from './usage-entry.js';
