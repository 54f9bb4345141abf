import { readFileSync } from 'node:fs';
import { CASSETTE_VERSION, type CassetteEntry, type CassetteHeader } from './cassette-entry.js';
import { CassetteFormatError } from './cassette-format-error.js';

/** A cassette as read from its file. */
export interface Cassette {
  readonly path: string;
  readonly header: CassetteHeader;
  /** Its calls, in file order. */
  readonly entries: readonly CassetteEntry[];
}

/**
 * Reads and checks a cassette file: a header line, then one JSON object per call
 * with every field of a {@link CassetteEntry}. Blank lines are skipped.
 *
 * @throws {CassetteFormatError} naming the file, the line and the field for anything else.
 */
export function readCassette(path: string): Cassette {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CassetteFormatError(
      path,
      null,
      code === 'ENOENT' ? 'no such cassette file' : `cannot read it (${code})`,
    );
  }
  return parseCassette(path, text);
}

/** {@link readCassette} on a text already read. */
export function parseCassette(path: string, text: string): Cassette {
  const lines = text.split('\n');
  let header: CassetteHeader | null = null;
  const entries: CassetteEntry[] = [];
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const number = index + 1;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new CassetteFormatError(path, number, 'not a JSON line');
    }
    if (header === null) {
      header = checkHeader(path, number, value);
      return;
    }
    entries.push(checkEntry(path, number, value, entries.length + 1));
  });
  if (header === null) throw new CassetteFormatError(path, null, 'empty: no header line');
  return { path, header, entries };
}

function checkHeader(path: string, line: number, value: unknown): CassetteHeader {
  if (!isObject(value) || value.cassette !== CASSETTE_VERSION) {
    throw new CassetteFormatError(
      path,
      line,
      `the first line must be a cassette header {"cassette": ${CASSETTE_VERSION}, ...}`,
    );
  }
  const endpoint = value.endpoint ?? null;
  if (endpoint !== null && !isRecordedEndpoint(endpoint)) {
    throw new CassetteFormatError(
      path,
      line,
      '"endpoint" must be null or {provider, baseUrl, thinking, prices: null or {cacheHitPerM, inputPerM, outputPerM} >= 0, pricingModel}',
    );
  }
  return value as unknown as CassetteHeader;
}

function checkEntry(path: string, line: number, value: unknown, position: number): CassetteEntry {
  const fail = (field: string, expected: string): never => {
    throw new CassetteFormatError(path, line, `"${field}" must be ${expected}`);
  };
  if (!isObject(value)) return fail('(line)', 'a JSON object');
  if (value.call !== position) fail('call', `${position} (calls are numbered in file order)`);
  if (typeof value.match !== 'string' || !/^[0-9a-f]{16}$/.test(value.match)) fail('match', '16 hex digits');
  if (value.key !== null && typeof value.key !== 'boolean') fail('key', 'true, false or null');
  if (typeof value.streamed !== 'boolean') fail('streamed', 'true or false');
  if (!isObject(value.request) || typeof value.request.model !== 'string')
    fail('request', 'an object with a model');
  if (typeof value.timeoutSeconds !== 'number') fail('timeoutSeconds', 'a number');
  if (!Array.isArray(value.attempts) || value.attempts.length === 0) fail('attempts', 'a non-empty array');
  (value.attempts as unknown[]).forEach((attempt, index) => {
    if (!isObject(attempt) || typeof attempt.ms !== 'number') fail(`attempts[${index}].ms`, 'a number');
    const error = (attempt as Record<string, unknown>).error;
    if (error !== null) checkError(error, `attempts[${index}].error`, fail);
  });
  checkReply(value.reply, fail);
  if (typeof value.ms !== 'number') fail('ms', 'a number');
  if (value.pricing !== null && !isObject(value.pricing)) fail('pricing', 'null or an object');
  return value as unknown as CassetteEntry;
}

function checkReply(reply: unknown, fail: (field: string, expected: string) => never): void {
  if (!isObject(reply)) fail('reply', 'an object');
  const value = reply as Record<string, unknown>;
  if ('error' in value) {
    checkError(value.error, 'reply.error', fail);
    return;
  }
  if ('events' in value) {
    if (typeof value.status !== 'number') fail('reply.status', 'a number');
    if (!isObject(value.headers)) fail('reply.headers', 'an object');
    if (!Array.isArray(value.events)) fail('reply.events', 'an array');
    (value.events as unknown[]).forEach((event, index) => {
      const ok =
        isObject(event) &&
        typeof event.ms === 'number' &&
        (typeof event.data === 'string' || typeof event.comment === 'string');
      if (!ok) fail(`reply.events[${index}]`, 'an object with ms and a data or comment string');
    });
    if (value.end !== null) checkError(value.end, 'reply.end', fail);
    return;
  }
  if (!('body' in value)) fail('reply', 'an object with body, events or error');
}

function checkError(error: unknown, field: string, fail: (field: string, expected: string) => never): void {
  const ok =
    isObject(error) &&
    typeof error.kind === 'string' &&
    typeof error.message === 'string' &&
    typeof error.retryable === 'boolean' &&
    (error.status === null || typeof error.status === 'number');
  if (!ok) fail(field, 'an error {kind, status, message, retryable}');
}

function isRecordedEndpoint(endpoint: unknown): boolean {
  if (!isObject(endpoint)) return false;
  const { provider, baseUrl, thinking, prices, pricingModel } = endpoint;
  const price = (value: unknown) => typeof value === 'number' && Number.isFinite(value) && value >= 0;
  return (
    typeof provider === 'string' &&
    typeof baseUrl === 'string' &&
    typeof thinking === 'boolean' &&
    (pricingModel === null || pricingModel === undefined || typeof pricingModel === 'string') &&
    (prices === null ||
      prices === undefined ||
      (isObject(prices) && price(prices.cacheHitPerM) && price(prices.inputPerM) && price(prices.outputPerM)))
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
