export { canonicalJson, requestHash } from './canonical-json.js';
export type * from './cassette-entry.js';
export { CASSETTE_VERSION } from './cassette-entry.js';
export { CASSETTE_RUN_ENV } from './cassette-file.js';
export { CassetteFormatError } from './cassette-format-error.js';
export { CassetteMissError, type CassetteMissErrorOptions } from './cassette-miss-error.js';
export { CassetteSecretError } from './cassette-secret-error.js';
export { cassetteToScript, type ScriptTurn } from './cassette-to-script.js';
export {
  type CassetteExamination,
  type CassetteProblem,
  type CassetteSummary,
  type CheckCassetteOptions,
  checkCassette,
  examineCassette,
  summarizeCassette,
} from './check-cassette.js';
export { type CassetteChange, diffCassettes } from './diff-cassettes.js';
export { CASSETTE_LIMITS, type Cassette, parseCassette, readCassette } from './read-cassette.js';
export { type RecordCassetteOptions, RecordingTransport, recordCassette } from './record-cassette.js';
export { type ReplayCassetteOptions, ReplayTransport, replayCassette } from './replay-cassette.js';
export { SECRET_MARKER, scrubSecrets } from './scrub-secrets.js';
export { environmentSecrets, MIN_SECRET_LENGTH } from './secret-scan.js';
export type { StreamEvent, TransportEventStream } from './transport-stream.js';
export { wireBody } from './wire-body.js';
