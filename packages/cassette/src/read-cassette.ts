import { closeSync, fstatSync, readSync } from 'node:fs';
import type { ChatErrorKind } from '@switchboard/adapter';
import { CASSETTE_VERSION, type CassetteEntry, type CassetteHeader } from './cassette-entry.js';
import { openForReading } from './cassette-file.js';
import { CassetteFormatError } from './cassette-format-error.js';
import { expandCompactReply } from './compact-events.js';
import { hasControlCharacter } from './control-characters.js';
import { isTestFileName, MAX_TEST_FILE_LENGTH } from './current-test-file.js';
import { isLostLine, lostMessage } from './lost-calls.js';

/** A cassette as read from its file. */
export interface Cassette {
  readonly path: string;
  readonly header: CassetteHeader;
  /** Its calls, in file order (each `call` its 1-based position). */
  readonly entries: readonly CassetteEntry[];
}

/**
 * The most a cassette is read into: the file, one line, one JSON value's
 * nesting, and a recorded stream (the caps a live reply has: 16 MiB of events,
 * 1 MiB each). A file past them is refused before it is parsed.
 */
export const CASSETTE_LIMITS = Object.freeze({
  fileBytes: 256 * 1024 * 1024,
  lineBytes: 48 * 1024 * 1024,
  depth: 64,
  streamBytes: 16 * 1024 * 1024,
  eventBytes: 1024 * 1024,
  events: 1_000_000,
  /** A recorded delay (ms): a day. Replay waits at most 60 s for any one of them. */
  delayMs: 86_400_000,
});

/** A structural problem a check reports where reading for replay fails. */
interface Problem {
  readonly line: number | null;
  readonly message: string;
}

/**
 * Reads and checks a cassette file, streaming, within {@link CASSETTE_LIMITS},
 * never through a symbolic link: a header line, then one JSON object per call
 * with every field of a {@link CassetteEntry}. Blank lines are skipped.
 *
 * @throws {CassetteFormatError} naming the file, the line and the field for anything else: a line of
 * another record run (two runs wrote the file), a second header, a last line cut short.
 */
export function readCassette(path: string): Cassette {
  const reader = new CassetteReader(path, null);
  readLines(path, (text, number, last) => reader.line(text, number, last));
  return reader.done();
}

/** {@link readCassette} on a text already read. */
export function parseCassette(path: string, text: string): Cassette {
  const reader = new CassetteReader(path, null);
  splitLines(path, text, (line, number, last) => reader.line(line, number, last));
  return reader.done();
}

/**
 * Reads a cassette for a check: what replay would refuse as a whole (lines of
 * two runs, a second header, a cut last line, a process's calls with a gap or out
 * of order) is collected in `problems` instead, and the readable calls kept.
 *
 * @internal
 * @throws {CassetteFormatError} for a file that is not a cassette at all.
 */
export function readCassetteForCheck(
  path: string,
  problems: Problem[],
  onLine?: (text: string, number: number) => void,
): Cassette {
  const reader = new CassetteReader(path, problems);
  readLines(path, (text, number, last) => {
    onLine?.(text, number);
    reader.line(text, number, last);
  });
  return reader.done();
}

/** Calls `onLine` with each line of the file as it is read, in chunks; `last` when the file ends without a newline. */
function readLines(path: string, onLine: (text: string, number: number, last: boolean) => void): void {
  const fd = openForReading(path);
  try {
    const size = fstatSync(fd).size;
    if (size > CASSETTE_LIMITS.fileBytes) {
      throw new CassetteFormatError(
        path,
        null,
        `${size} bytes: larger than a cassette may be (${CASSETTE_LIMITS.fileBytes} bytes); re-record it in parts`,
      );
    }
    const chunk = Buffer.alloc(1024 * 1024);
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let number = 0;
    let total = 0;
    for (;;) {
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      total += read;
      if (total > CASSETTE_LIMITS.fileBytes) {
        throw new CassetteFormatError(
          path,
          null,
          `larger than a cassette may be (${CASSETTE_LIMITS.fileBytes} bytes)`,
        );
      }
      const view = chunk.subarray(0, read);
      let start = 0;
      for (let end = view.indexOf(0x0a, start); end >= 0; end = view.indexOf(0x0a, start)) {
        number += 1;
        const piece = view.subarray(start, end);
        const line = pending.length === 0 ? piece : Buffer.concat([...pending, piece]);
        pending = [];
        pendingBytes = 0;
        lineCap(path, number, line.length);
        onLine(line.toString('utf8'), number, false);
        start = end + 1;
      }
      if (start < read) {
        pendingBytes += read - start;
        lineCap(path, number + 1, pendingBytes);
        pending.push(Buffer.from(view.subarray(start)));
      }
    }
    if (pendingBytes > 0) onLine(Buffer.concat(pending).toString('utf8'), number + 1, true);
  } finally {
    closeSync(fd);
  }
}

function splitLines(
  path: string,
  text: string,
  onLine: (text: string, number: number, last: boolean) => void,
): void {
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    const last = index === lines.length - 1;
    if (last && line === '') return;
    lineCap(path, index + 1, Buffer.byteLength(line));
    onLine(line, index + 1, last);
  });
}

function lineCap(path: string, number: number, bytes: number): void {
  if (bytes > CASSETTE_LIMITS.lineBytes) {
    throw new CassetteFormatError(
      path,
      number,
      `longer than a cassette line may be (${CASSETTE_LIMITS.lineBytes} bytes)`,
    );
  }
}

/** How deep a JSON text nests, read without parsing it (so a 100k-deep line is refused, not recursed into). */
function nestingOf(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 92) index += 1;
      else if (code === 34) inString = false;
      continue;
    }
    if (code === 34) inString = true;
    else if (code === 123 || code === 91) {
      depth += 1;
      if (depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if (code === 125 || code === 93) depth -= 1;
  }
  return deepest;
}

/** Reads lines into a cassette, checking each; structural problems thrown, or collected for a check. */
class CassetteReader {
  readonly #path: string;
  readonly #problems: Problem[] | null;
  #header: CassetteHeader | null = null;
  readonly #entries: CassetteEntry[] = [];
  readonly #seqs = new Map<string, number>();

  constructor(path: string, problems: Problem[] | null) {
    this.#path = path;
    this.#problems = problems;
  }

  #structural(line: number | null, message: string): void {
    if (this.#problems === null) throw new CassetteFormatError(this.#path, line, message);
    this.#problems.push({ line, message });
  }

  line(line: string, number: number, last: boolean): void {
    if (line.trim() === '') return;
    if (nestingOf(line, CASSETTE_LIMITS.depth) > CASSETTE_LIMITS.depth) {
      throw new CassetteFormatError(this.#path, number, `nests deeper than ${CASSETTE_LIMITS.depth} levels`);
    }
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      if (last) {
        this.#structural(
          number,
          'cut: the file ends inside this line (a recording was interrupted, or the file was truncated); re-record it',
        );
        return;
      }
      if (this.#problems === null || this.#header === null) {
        throw new CassetteFormatError(this.#path, number, 'not a JSON line');
      }
      this.#problems.push({
        line: number,
        message: 'not a JSON line: cut short (a recording process died in the middle of it?); re-record it',
      });
      return;
    }
    if (this.#header === null) {
      this.#header = checkHeader(this.#path, number, value);
      return;
    }
    if (isObject(value) && isLostLine(value)) {
      this.#structural(number, lostMessage(value));
      return;
    }
    if (isObject(value) && 'cassette' in value && !('request' in value)) {
      this.#structural(
        number,
        'a second cassette header: two cassettes were joined, or two record runs wrote the file',
      );
      return;
    }
    const entry = checkEntry(
      this.#path,
      number,
      expandCompact(this.#path, number, value),
      this.#entries.length + 1,
    );
    const run = this.#header.run;
    if (entry.run !== run) {
      this.#structural(
        number,
        `recorded by another run (${JSON.stringify(entry.run ?? null)}) than the header's (${JSON.stringify(run ?? null)}): two record runs wrote to this file; re-record it`,
      );
      return;
    }
    if (entry.process !== undefined && entry.seq !== undefined) {
      const previous = this.#seqs.get(entry.process) ?? 0;
      this.#seqs.set(entry.process, Math.max(previous, entry.seq));
      if (this.#problems !== null && entry.seq !== previous + 1) {
        this.#problems.push({
          line: number,
          message:
            entry.seq > previous + 1
              ? `process ${entry.process}: call ${entry.seq} follows call ${previous}; ${entry.seq - previous - 1} call(s) of it are missing (a line was lost or removed)`
              : `process ${entry.process}: call ${entry.seq} comes after call ${previous} (lines out of order, or repeated)`,
        });
      }
    }
    this.#entries.push(entry);
  }

  done(): Cassette {
    if (this.#header === null) throw new CassetteFormatError(this.#path, null, 'empty: no header line');
    return { path: this.#path, header: this.#header, entries: this.#entries };
  }
}

/** A line's compact stream events expanded (see `expandCompactReply`), within the stream caps. */
function expandCompact(path: string, line: number, value: unknown): unknown {
  return expandCompactReply(value, CASSETTE_LIMITS, (field, expected) => {
    throw new CassetteFormatError(path, line, `"${field}" must be ${expected}`);
  });
}

/** The format versions this reader reads: 1, and 2 (whose streams may be written compactly). */
const READABLE_VERSIONS: readonly unknown[] = [1, CASSETTE_VERSION];

function checkHeader(path: string, line: number, value: unknown): CassetteHeader {
  if (!isObject(value) || !READABLE_VERSIONS.includes(value.cassette)) {
    throw new CassetteFormatError(
      path,
      line,
      `the first line must be a cassette header {"cassette": ${CASSETTE_VERSION}, ...} (version 1 is read too)`,
    );
  }
  const run = value.run;
  if (
    run !== undefined &&
    (typeof run !== 'string' || run === '' || run.length > 200 || hasControlCharacter(run))
  ) {
    throw new CassetteFormatError(
      path,
      line,
      '"run" must be a non-empty string of at most 200 characters, without control characters',
    );
  }
  const replaced = value.replaced;
  if (
    replaced !== undefined &&
    !(
      Array.isArray(replaced) &&
      replaced.length <= 16 &&
      replaced.every(
        (other) =>
          typeof other === 'string' && other !== '' && other.length <= 200 && !hasControlCharacter(other),
      )
    )
  ) {
    throw new CassetteFormatError(
      path,
      line,
      '"replaced" must be a list of at most 16 run names (non-empty strings of at most 200 characters, without control characters)',
    );
  }
  const endpoint = value.endpoint ?? null;
  if (endpoint !== null) checkEndpoint(path, line, endpoint);
  return {
    cassette: value.cassette as number,
    ...(run === undefined ? {} : { run: run as string }),
    ...(replaced === undefined ? {} : { replaced: replaced as string[] }),
    endpoint: endpoint as CassetteHeader['endpoint'],
  };
}

function checkEndpoint(path: string, line: number, endpoint: unknown): void {
  const fail = (field: string, expected: string): never => {
    throw new CassetteFormatError(path, line, `"endpoint${field}" must be ${expected}`);
  };
  if (!isObject(endpoint)) {
    fail(
      '',
      'null or {provider, baseUrl, thinking, prices: null or {cacheHitPerM, inputPerM, outputPerM} >= 0, pricingModel}',
    );
  }
  const { provider, baseUrl, thinking, prices, pricingModel } = endpoint as Record<string, unknown>;
  if (typeof provider !== 'string' || !/^[a-z][a-z0-9_-]{0,31}$/.test(provider)) {
    fail('.provider', 'a provider name (lower-case letters, digits, - and _)');
  }
  if (typeof baseUrl !== 'string' || baseUrl.length > 2048 || hasControlCharacter(baseUrl)) {
    fail('.baseUrl', 'an absolute http(s) address without control characters');
  }
  let url: URL | null = null;
  try {
    url = new URL(baseUrl as string);
  } catch {
    // not an address
  }
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    fail('.baseUrl', 'an absolute http(s) address');
  }
  if ((url as URL).username !== '' || (url as URL).password !== '') {
    fail('.baseUrl', 'an address without credentials in it');
  }
  if (typeof thinking !== 'boolean') fail('.thinking', 'true or false');
  if (
    pricingModel !== null &&
    pricingModel !== undefined &&
    (typeof pricingModel !== 'string' || pricingModel.length > 200 || hasControlCharacter(pricingModel))
  ) {
    fail('.pricingModel', 'null or a model name without control characters');
  }
  const price = (value: unknown) =>
    typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 1e6;
  if (
    prices !== null &&
    prices !== undefined &&
    !(isObject(prices) && price(prices.cacheHitPerM) && price(prices.inputPerM) && price(prices.outputPerM))
  ) {
    fail('.prices', 'null or {cacheHitPerM, inputPerM, outputPerM}, each a number from 0 to 1e6');
  }
}

const ERROR_KINDS: ReadonlySet<ChatErrorKind> = new Set<ChatErrorKind>([
  'model_rejected',
  'bad_request',
  'auth',
  'rate_limited',
  'timeout',
  'server',
  'connection',
  'bad_reply',
  'billing',
  'aborted',
  'budget',
  'cassette_miss',
]);

const isDelay = (value: unknown) =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= CASSETTE_LIMITS.delayMs;

function checkEntry(path: string, line: number, value: unknown, position: number): CassetteEntry {
  const fail = (field: string, expected: string): never => {
    throw new CassetteFormatError(path, line, `"${field}" must be ${expected}`);
  };
  if (!isObject(value)) return fail('(line)', 'a JSON object');
  // Older cassettes numbered their calls in the file; newer ones name the process and its count.
  if (value.call !== undefined && value.call !== position) {
    fail('call', `${position} (calls are numbered in file order)`);
  }
  if (value.run !== undefined && (typeof value.run !== 'string' || value.run.length > 200))
    fail('run', 'a string');
  if (
    value.process !== undefined &&
    (typeof value.process !== 'string' || !/^[\w.-]{1,64}$/.test(value.process))
  ) {
    fail('process', 'a process name (letters, digits, ., - and _)');
  }
  if (value.seq !== undefined && (!Number.isSafeInteger(value.seq) || (value.seq as number) < 1)) {
    fail('seq', 'a whole number from 1');
  }
  if ((value.process === undefined) !== (value.seq === undefined))
    fail('seq', 'given with "process", and only then');
  if (value.call === undefined && value.process === undefined)
    fail('process', 'the process that recorded the call');
  if (value.test !== undefined && !isTestFileName(value.test))
    fail('test', `a test file's name (at most ${MAX_TEST_FILE_LENGTH} characters, no control characters)`);
  if (typeof value.match !== 'string' || !/^[0-9a-f]{16}$/.test(value.match)) fail('match', '16 hex digits');
  if (value.key !== null && typeof value.key !== 'boolean') fail('key', 'true, false or null');
  if (typeof value.streamed !== 'boolean') fail('streamed', 'true or false');
  if (!isObject(value.request) || typeof value.request.model !== 'string')
    fail('request', 'an object with a model');
  const model = (value.request as Record<string, unknown>).model as string;
  if (model.length > 200 || hasControlCharacter(model))
    fail('request.model', 'a model name without control characters');
  if (
    typeof value.timeoutSeconds !== 'number' ||
    !Number.isFinite(value.timeoutSeconds) ||
    value.timeoutSeconds <= 0
  )
    fail('timeoutSeconds', 'a number of seconds above 0');
  if (!Array.isArray(value.attempts) || value.attempts.length === 0 || value.attempts.length > 100)
    fail('attempts', 'a non-empty array (at most 100)');
  (value.attempts as unknown[]).forEach((attempt, index) => {
    if (!isObject(attempt) || !isDelay(attempt.ms))
      fail(`attempts[${index}].ms`, 'a delay in milliseconds (0 to a day)');
    const error = (attempt as Record<string, unknown>).error;
    if (error !== null) checkError(error, `attempts[${index}].error`, fail);
  });
  checkReply(value.reply, fail);
  if (!isDelay(value.ms)) fail('ms', 'a duration in milliseconds (0 to a day)');
  if (value.pricing !== null && !isObject(value.pricing)) fail('pricing', 'null or an object');
  return { ...(value as unknown as CassetteEntry), call: position };
}

function checkReply(reply: unknown, fail: (field: string, expected: string) => never): void {
  if (!isObject(reply)) fail('reply', 'an object');
  const value = reply as Record<string, unknown>;
  if ('error' in value) {
    checkError(value.error, 'reply.error', fail);
    return;
  }
  if ('events' in value) {
    if (!Number.isInteger(value.status) || (value.status as number) < 100 || (value.status as number) > 599)
      fail('reply.status', 'an HTTP status');
    if (
      !isObject(value.headers) ||
      !Object.values(value.headers).every((header) => typeof header === 'string')
    )
      fail('reply.headers', 'an object of strings');
    if (!Array.isArray(value.events)) fail('reply.events', 'an array');
    const events = value.events as unknown[];
    if (events.length > CASSETTE_LIMITS.events)
      fail('reply.events', `at most ${CASSETTE_LIMITS.events} events`);
    let bytes = 0;
    events.forEach((event, index) => {
      const text = isObject(event)
        ? typeof event.data === 'string'
          ? event.data
          : event.comment
        : undefined;
      const ok = isObject(event) && isDelay(event.ms) && typeof text === 'string';
      if (!ok) fail(`reply.events[${index}]`, 'an object with ms (0 to a day) and a data or comment string');
      if ((text as string).length > CASSETTE_LIMITS.eventBytes) {
        fail(`reply.events[${index}]`, `at most ${CASSETTE_LIMITS.eventBytes} bytes (a live event's cap)`);
      }
      bytes += (text as string).length;
    });
    if (bytes > CASSETTE_LIMITS.streamBytes) {
      fail('reply.events', `at most ${CASSETTE_LIMITS.streamBytes} bytes in all (a live reply's cap)`);
    }
    if (value.end !== null) checkError(value.end, 'reply.end', fail);
    return;
  }
  if (!('body' in value)) fail('reply', 'an object with body, events or error');
}

function checkError(error: unknown, field: string, fail: (field: string, expected: string) => never): void {
  const ok =
    isObject(error) &&
    typeof error.kind === 'string' &&
    ERROR_KINDS.has(error.kind as ChatErrorKind) &&
    typeof error.message === 'string' &&
    typeof error.retryable === 'boolean' &&
    (error.status === null ||
      (Number.isInteger(error.status) &&
        (error.status as number) >= 100 &&
        (error.status as number) <= 599)) &&
    (error.retryAfterSeconds === undefined ||
      (typeof error.retryAfterSeconds === 'number' &&
        Number.isFinite(error.retryAfterSeconds) &&
        error.retryAfterSeconds >= 0)) &&
    (error.model === undefined || typeof error.model === 'string') &&
    (error.supportedModels === undefined ||
      (Array.isArray(error.supportedModels) &&
        error.supportedModels.every((model) => typeof model === 'string')));
  if (!ok)
    fail(field, 'an error {kind (a ChatError kind), status (null or an HTTP status), message, retryable}');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
