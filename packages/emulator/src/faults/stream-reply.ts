import { isDataEvent, type StreamEvent, type StreamShape, streamEvents } from '../chat/stream-events.js';
import type { Reply, SseBody } from '../http/deliver-reply.js';
import { errorInBodyJson } from './fault-bodies.js';
import type { StreamFault } from './fault-rule.js';
import { isUsageEvent, withDuplicateUsage, withRunningUsage, withUsage } from './stream-usage.js';

/** The text a `malformedAt` event carries instead of its JSON. */
const MALFORMED = '{"id": "chatcmpl-broken", "choices": [{"delta": {"content": "cut';

/**
 * A streamed reply (`text/event-stream`) of `completion`, shaped as the
 * platform streams and broken as `fault` says (see {@link StreamFault}).
 */
export function streamReply(
  completion: Record<string, unknown>,
  shape: StreamShape,
  fault: StreamFault | undefined,
): Reply {
  let events = streamEvents(completion, {
    ...shape,
    keepAlives: fault?.keepAlives ?? shape.keepAlives,
  });
  let endless: Record<string, unknown> | null = null;
  if (fault?.leadingWhitespace !== undefined) events = withWhitespace(events, fault.leadingWhitespace);
  if (fault?.usageEveryChunk === true) events = withRunningUsage(events, completion);
  if (fault?.noUsage === true) events = events.filter((event) => !isUsageEvent(event));
  if (fault?.duplicateUsage === true) events = withDuplicateUsage(events);
  if (fault?.usage !== undefined) events = withUsage(events, fault.usage);
  if (fault?.noDone === true)
    events = events.filter((event) => !('data' in event && event.data === '[DONE]'));
  if (fault?.endless === true) {
    const role = events.findIndex((event) => 'data' in event);
    events = events.slice(0, role + 1);
    const first = events[role];
    endless = contentChunk(first, ' endless');
  }
  if (fault?.malformedAt !== undefined)
    events = replaceData(events, fault.malformedAt, () => ({ raw: MALFORMED }));
  if (fault?.errorAt !== undefined) {
    const at = fault.errorAt;
    const data = errorInBodyJson({ code: fault.errorCode ?? 502 }, String(completion.model), 0);
    events = replaceData(events, at, () => (fault.errorEvent === true ? { event: 'error', data } : { data }));
    events = events.slice(0, dataIndex(events, at) + 1);
  }
  if (fault?.afterDone !== undefined) events = [...events, { bytes: fault.afterDone }];
  const body: SseBody = {
    events,
    eventMs: fault?.eventMs ?? 0,
    keepAliveMs: fault?.keepAliveMs ?? 0,
    cutAfter: fault?.cutAfterEvents ?? null,
    endAfter: fault?.endAfterEvents ?? null,
    stallAfter: fault?.stallAfterEvents ?? null,
    endless,
  };
  return {
    status: 200,
    headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' },
    body: { sse: body },
  };
}

function dataIndex(events: readonly StreamEvent[], position: number): number {
  let seen = 0;
  for (const [index, event] of events.entries()) {
    if (!isDataEvent(event)) continue;
    seen += 1;
    if (seen === position) return index;
  }
  return events.length - 1;
}

function replaceData(events: StreamEvent[], position: number, make: () => StreamEvent): StreamEvent[] {
  const index = dataIndex(events, position);
  return events.map((event, at) => (at === index ? make() : event));
}

function contentChunk(roleEvent: StreamEvent | undefined, text: string): Record<string, unknown> {
  const data =
    roleEvent !== undefined && 'data' in roleEvent && roleEvent.data !== '[DONE]' ? roleEvent.data : {};
  return { ...data, choices: [{ index: 0, delta: { content: text }, logprobs: null, finish_reason: null }] };
}

// Whitespace content deltas, one character each, right before the first content delta (or the finish chunk).
function withWhitespace(events: StreamEvent[], whitespace: string): StreamEvent[] {
  const at = events.findIndex((event, index) => index > 0 && isContentOrFinish(event));
  const role = events.findIndex((event) => 'data' in event);
  const template = events[role];
  const inserted = [...whitespace].map((character) => ({ data: contentChunk(template, character) }));
  const index = at < 0 ? events.length : at;
  return [...events.slice(0, index), ...inserted, ...events.slice(index)];
}

function isContentOrFinish(event: StreamEvent): boolean {
  if (!('data' in event) || event.data === '[DONE]') return false;
  const choice = (event.data.choices as Record<string, unknown>[] | undefined)?.[0];
  if (choice === undefined) return true;
  const delta = choice.delta as Record<string, unknown>;
  return (
    (typeof delta.content === 'string' && delta.content !== '' && delta.role === undefined) ||
    choice.finish_reason !== null ||
    delta.tool_calls !== undefined
  );
}
