import type { TransportRequest } from '@switchboard/adapter';
import { sortedCopy } from './canonical-json.js';

/** What a streamed call adds to the body: the stream flag and the usage chunk at its end. */
const STREAM_FIELDS = { stream: true, stream_options: { include_usage: true } };

/**
 * The normalised request of a transport call: the body the wire carries
 * (`model`, `messages`, `temperature: 0`, `tools` when non-empty, then the extra
 * body on top: thinking, temperature, response_format, logprobs, top_logprobs,
 * max_tokens; plus `stream` and `stream_options` for a streamed call), as JSON
 * with sorted keys. Timeouts, signals and attempt hooks never reach the body and
 * are not part of it.
 */
export function wireBody(request: TransportRequest, streamed: boolean): Record<string, unknown> {
  const tools = Array.isArray(request.tools) && request.tools.length > 0 ? request.tools : undefined;
  const body = {
    model: request.model,
    messages: request.messages,
    temperature: 0,
    ...(tools ? { tools } : {}),
    ...request.extraBody,
    ...(streamed ? STREAM_FIELDS : {}),
  };
  return sortedCopy(body) as Record<string, unknown>;
}
