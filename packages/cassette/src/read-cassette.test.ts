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
    ['{"cassette":2}', 'run.cassette.jsonl:1: the first line must be a cassette header {"cassette": 1, ...}'],
    [`${HEADER}\nnot json`, 'run.cassette.jsonl:2: not a JSON line'],
    [
      '{"cassette":1,"endpoint":{"provider":"primary","baseUrl":"x","thinking":false,"prices":{"inputPerM":-1}}}',
      'run.cassette.jsonl:1: "endpoint" must be null or {provider, baseUrl, thinking, prices: null or {cacheHitPerM, inputPerM, outputPerM} >= 0, pricingModel}',
    ],
    [
      `${HEADER}\n${JSON.stringify({ ...ENTRY, call: 2 })}`,
      'run.cassette.jsonl:2: "call" must be 1 (calls are numbered in file order)',
    ],
    [
      `${HEADER}\n${JSON.stringify({ ...ENTRY, attempts: [] })}`,
      'run.cassette.jsonl:2: "attempts" must be a non-empty array',
    ],
    [
      `${HEADER}\n${JSON.stringify({ ...ENTRY, reply: { error: { kind: 'auth' } } })}`,
      'run.cassette.jsonl:2: "reply.error" must be an error {kind, status, message, retryable}',
    ],
    [
      `${HEADER}\n${JSON.stringify({ ...ENTRY, reply: { status: 200, headers: {}, events: [{ ms: 1 }], end: null } })}`,
      'run.cassette.jsonl:2: "reply.events[0]" must be an object with ms and a data or comment string',
    ],
  ])('names the line and field of what is wrong: %j', (text, message) => {
    expect(failureOf(text).message).toBe(message);
  });
});
