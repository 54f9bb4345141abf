export { canonicalJson, requestHash } from './canonical-json.js';
export {
  CASSETTE_VERSION,
  type CassetteEntry,
  type CassetteHeader,
  type RecordedAttempt,
  type RecordedBody,
  type RecordedEndpoint,
  type RecordedError,
  type RecordedFailure,
  type RecordedReply,
  type RecordedStream,
  type RecordedStreamEvent,
} from './cassette-entry.js';
export { CassetteFormatError } from './cassette-format-error.js';
export { CassetteMissError, type CassetteMissErrorOptions } from './cassette-miss-error.js';
export { CassetteSecretError } from './cassette-secret-error.js';
export { cassetteToScript, type ScriptTurn } from './cassette-to-script.js';
export { type CassetteProblem, type CheckCassetteOptions, checkCassette } from './check-cassette.js';
export { type CassetteChange, diffCassettes } from './diff-cassettes.js';
export { type Cassette, parseCassette, readCassette } from './read-cassette.js';
export { type RecordCassetteOptions, RecordingTransport, recordCassette } from './record-cassette.js';
export { type ReplayCassetteOptions, ReplayTransport, replayCassette } from './replay-cassette.js';
export { SECRET_MARKER, scrubSecrets } from './scrub-secrets.js';
export type { StreamEvent, TransportEventStream } from './transport-stream.js';
export { wireBody } from './wire-body.js';
