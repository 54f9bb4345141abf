export type { ChatAdapterOptions } from './chat-adapter.js';
export { ChatAdapter } from './chat-adapter.js';
export type { ChatErrorKind, ChatErrorOptions } from './chat-error.js';
export { ChatError } from './chat-error.js';
export { chatResponseFromMessage } from './chat-response-from-message.js';
export type { ModelRejectedErrorOptions } from './model-rejected-error.js';
export { ModelRejectedError } from './model-rejected-error.js';
export type { ListModelsOptions, OpenAITransportOptions } from './openai-transport.js';
export { OpenAITransport } from './openai-transport.js';
export { toAssistantMessage } from './to-assistant-message.js';
export type {
  ChatClient,
  ChatMessage,
  ChatResponse,
  ChatTransport,
  CompleteRequest,
  CostModel,
  ToolCall,
  ToolSchema,
  TransportRequest,
} from './types.js';
