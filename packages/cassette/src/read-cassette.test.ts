import { describe, expect, it } from 'vitest';
import { CassetteFormatError } from './cassette-format-error.js';
import { parseCassette } from './read-cassette.js';

const HEADER = '{"cassette":1,"endpoint":null}';
const ENTRY = {
  call: 1,
  match: '0123456789abcdef',
  key: true,
  streamed: false,
  request: { model: 'primary-flash', messages: [] },
  timeoutSeconds: 60,
  attempts: [{ ms: 3, error: null }],
  reply: { body: { choices: [] } },
  ms: 3,
  pricing: null,
};

function failureOf(text: string): CassetteFormatError {
  try {
    parseCassette('run.cassette.jsonl', text);
  } catch (error) {
    if (error instanceof CassetteFormatError) return error;
    throw error;
  }
  throw new Error('expected a CassetteFormatError');
}

describe('parseCassette', () => {
  it('reads a header and its calls, skipping blank lines', () => {
    const cassette = parseCassette('run.cassette.jsonl', `${HEADER}\n\n${JSON.stringify(ENTRY)}\n`);
    expect(cassette.header).toEqual({ cassette: 1, endpoint: null });
    expect(cassette.entries).toEqual([ENTRY]);
  });

  it.each([
    ['', 'run.cassette.jsonl: empty: no header line'],
    [
      '{"cassette":3}',
      'run.cassette.jsonl:1: the first line must be a cassette header {"cassette": 2, ...} (version 1 is read too)',
    ],
    [`${HEADER}\nnot json\n`, 'run.cassette.jsonl:2: not a JSON line'],
    [
      `${HEADER}\n${JSON.stringify(ENTRY).slice(0, 40)}`,
      'run.cassette.jsonl:2: cut: the file ends inside this line (a recording was interrupted, or the file was truncated); re-record it',
    ],
    [
      '{"cassette":1,"endpoint":{"provider":"primary","baseUrl":"x","thinking":false,"prices":null}}',
      'run.cassette.jsonl:1: "endpoint.baseUrl" must be an absolute http(s) address',
    ],
    [
      '{"cassette":1,"endpoint":{"provider":"primary","baseUrl":"javascript:alert(1)","thinking":false}}',
      'run.cassette.jsonl:1: "endpoint.baseUrl" must be an absolute http(s) address',
    ],
    [
      '{"cassette":1,"endpoint":{"provider":"primary","baseUrl":"https://u:p@api.example","thinking":false}}',
      'run.cassette.jsonl:1: "endpoint.baseUrl" must be an address without credentials in it',
    ],
    [
      '{"cassette":1,"endpoint":{"provider":"primary","baseUrl":"https://api.example/\\u001b[2J","thinking":false}}',
      'run.cassette.jsonl:1: "endpoint.baseUrl" must be an absolute http(s) address without control characters',
    ],
    [
      '{"cassette":1,"endpoint":{"provider":"primary","baseUrl":"https://api.example","thinking":false,"prices":{"inputPerM":-1}}}',
      'run.cassette.jsonl:1: "endpoint.prices" must be null or {cacheHitPerM, inputPerM, outputPerM}, each a number from 0 to 1e6',
    ],
    [
      `${HEADER}\n${JSON.stringify({ ...ENTRY, request: { model: 'evil\nok: forged line', messages: [] } })}`,
      'run.cassette.jsonl:2: "request.model" must be a model name without control characters',
    ],
    [
      `${HEADER}\n${JSON.stringify({ ...ENTRY, request: { model: 'm', messages: 'DEEP' } }).replace('"DEEP"', `${'['.repeat(100_000)}${']'.repeat(100_000)}`)}`,
      'run.cassette.jsonl:2: nests deeper than 64 levels',
    ],
    [
      `${HEADER}\n${JSON.stringify({ ...ENTRY, attempts: [{ ms: 1e9, error: null }] })}`,
      'run.cassette.jsonl:2: "attempts[0].ms" must be a delay in milliseconds (0 to a day)',
    ],
    [
      `{"cassette":1,"run":"a","endpoint":null}\n${JSON.stringify({ ...ENTRY, call: undefined, run: 'b', process: 'p', seq: 1 })}`,
      'run.cassette.jsonl:2: recorded by another run ("b") than the header\'s ("a"): two record runs wrote to this file; re-record it',
    ],
    [
      `${HEADER}\n${HEADER}`,
      'run.cassette.jsonl:2: a second cassette header: two cassettes were joined, or two record runs wrote the file',
    ],
    [
      `${HEADER}\n${JSON.stringify({ ...ENTRY, call: 2 })}`,
      'run.cassette.jsonl:2: "call" must be 1 (calls are numbered in file order)',
    ],
    [
      `${HEADER}\n${JSON.stringify({ ...ENTRY, test: 'test/a.test.ts\u001b[2J' })}`,
      'run.cassette.jsonl:2: "test" must be a test file\'s name (at most 1024 characters, no control characters)',
    ],
    [
      `${HEADER}\n${JSON.stringify({ ...ENTRY, attempts: [] })}`,
      'run.cassette.jsonl:2: "attempts" must be a non-empty array (at most 100)',
    ],
    [
      `${HEADER}\n${JSON.stringify({ ...ENTRY, reply: { error: { kind: 'auth' } } })}`,
      'run.cassette.jsonl:2: "reply.error" must be an error {kind (a ChatError kind), status (null or an HTTP status), message, retryable}',
    ],
    [
      `${HEADER}\n${JSON.stringify({ ...ENTRY, reply: { error: { kind: 'weird', status: null, message: '', retryable: false } } })}`,
      'run.cassette.jsonl:2: "reply.error" must be an error {kind (a ChatError kind), status (null or an HTTP status), message, retryable}',
    ],
    [
      `${HEADER}\n${JSON.stringify({ ...ENTRY, reply: { status: 200, headers: {}, events: [{ ms: 1 }], end: null } })}`,
      'run.cassette.jsonl:2: "reply.events[0]" must be an object with ms (0 to a day) and a data or comment string',
    ],
  ])('names the line and field of what is wrong: %j', (text, message) => {
    expect(failureOf(text).message).toBe(message);
  });
});
