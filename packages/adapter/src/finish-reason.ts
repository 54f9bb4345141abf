/**
 * Why the model stopped: `stop` (a natural end or a stop sequence), `length`
 * (the `max_tokens` cap cut it), `tool_calls`, `content_filter`, the older
 * `function_call`, `insufficient_system_resource` (the primary platform ran out
 * of capacity) or `error` (the gateway's upstream failed mid-reply); any other
 * string a provider sends is kept as it is.
 */
export type FinishReason =
  | 'stop'
  | 'length'
  | 'tool_calls'
  | 'content_filter'
  | 'function_call'
  | 'insufficient_system_resource'
  | 'error'
  | (string & {});
