export { canonicalJson, requestHash } from './canonical-json.js';
export type {
  CassetteEntry,
  CassetteHeader,
  RecordedAttempt,
  RecordedBody,
  RecordedEndpoint,
  RecordedError,
  RecordedFailure,
  RecordedReply,
  RecordedStream,
  RecordedStreamEvent,
} from './cassette-entry.js';
export { CASSETTE_VERSION } from './cassette-entry.js';
export { CassetteFormatError } from './cassette-format-error.js';
export type { CassetteMissErrorOptions } from './cassette-miss-error.js';
export { CassetteMissError } from './cassette-miss-error.js';
export { CassetteSecretError } from './cassette-secret-error.js';
export type { ScriptTurn } from './cassette-to-script.js';
export { cassetteToScript } from './cassette-to-script.js';
export type { CassetteProblem, CheckCassetteOptions } from './check-cassette.js';
export { checkCassette } from './check-cassette.js';
export type { CassetteChange } from './diff-cassettes.js';
export { diffCassettes } from './diff-cassettes.js';
export type { Cassette } from './read-cassette.js';
export { parseCassette, readCassette } from './read-cassette.js';
export type { RecordCassetteOptions } from './record-cassette.js';
export { RecordingTransport, recordCassette } from './record-cassette.js';
export type { ReplayCassetteOptions } from './replay-cassette.js';
export { ReplayTransport, replayCassette } from './replay-cassette.js';
export { SECRET_MARKER, scrubSecrets } from './scrub-secrets.js';
export type { StreamEvent, TransportEventStream } from './transport-stream.js';
export { wireBody } from './wire-body.js';
