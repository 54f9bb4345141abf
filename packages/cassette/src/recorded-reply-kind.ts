import type { RecordedFailure, RecordedReply, RecordedStream } from './cassette-entry.js';

/** Whether a reply is a failure before any reply. */
export function isFailure(reply: RecordedReply): reply is RecordedFailure {
  return 'error' in reply;
}

/** Whether a reply is a streamed one. */
export function isStream(reply: RecordedReply): reply is RecordedStream {
  return 'events' in reply;
}
