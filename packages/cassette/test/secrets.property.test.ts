import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { deflateSync, gzipSync } from 'node:zlib';
import { ChatAdapter, ChatError, type ChatTransport } from '@switchboard/adapter';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkCassette, recordCassette, requestHash, type StreamEvent } from '../src/index.js';
import { cassettePath } from './support/cassette-path.js';
import { holdsSecret } from './support/decoded-forms.js';
import { chunk, replyWith, streamTransport } from './support/stub-transports.js';

/**
 * Random keys planted in random places of requests and replies, in random
 * encodings and splits: the written cassette, decoded every way a reader could
 * (independently of the package's scanner), never holds the key; and a cassette
 * made by hand with the same plant fails `checkCassette`.
 *
 * `CASSETTE_SEED` replays a failure with the seed fast-check printed; `CASSETTE_RUNS` runs more.
 */
const SEED = Number(process.env.CASSETTE_SEED ?? 31);
const RUNS = Number(process.env.CASSETTE_RUNS ?? 120);

const KEY_CHARACTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~/+=';
const keyArbitrary = fc
  .tuple(
    fc.constantFrom('', 'sk-proj-', 'live_', 'tk-', 'gw.'),
    fc.string({ unit: fc.constantFrom(...KEY_CHARACTERS), minLength: 20, maxLength: 40 }),
  )
  .map(([prefix, body]) => `${prefix}${body}`)
  // A key is one token: not all symbols, and not a marker the scrubber writes.
  .filter((key) => /[A-Za-z0-9]{4}/.test(key));

type Encoding =
  | 'raw'
  | 'json-u'
  | 'json-slash'
  | 'percent'
  | 'percent-some'
  | 'html-decimal'
  | 'html-hex'
  | 'base64'
  | 'base64url'
  | 'hex'
  | 'percent-of-base64'
  | 'base64-of-percent'
  | 'base64-of-json-u'
  | 'hex-spaced'
  | 'hex-colons'
  | 'base64-of-gzip'
  | 'base64-of-zlib'
  | 'zero-width'
  | 'full-width'
  | 'spaced-out'
  | 'reversed';

const ENCODINGS: Encoding[] = [
  'raw',
  'json-u',
  'json-slash',
  'percent',
  'percent-some',
  'html-decimal',
  'html-hex',
  'base64',
  'base64url',
  'hex',
  'percent-of-base64',
  'base64-of-percent',
  'base64-of-json-u',
  'hex-spaced',
  'hex-colons',
  'base64-of-gzip',
  'base64-of-zlib',
  'zero-width',
  'full-width',
  'spaced-out',
  'reversed',
];

const percentAll = (text: string) =>
  [...Buffer.from(text)].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
const hexPairs = (text: string) => [...Buffer.from(text)].map((byte) => byte.toString(16).padStart(2, '0'));
const jsonU = (text: string) =>
  [...text].map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');

/** The key encoded, inside a blob that puts it at `offset` bytes from the blob's start. */
function encode(key: string, encoding: Encoding, offset: number): string {
  const lead = 'Bearer: '.slice(0, offset);
  const blob = `${lead}${key}`;
  switch (encoding) {
    case 'raw':
      return key;
    case 'json-u':
      return jsonU(key);
    case 'json-slash':
      return key.replace(/\//g, '\\/').replace(/[a-z]/, (letter) => jsonU(letter));
    case 'percent':
      return percentAll(key);
    case 'percent-some':
      return [...key].map((unit, index) => (index % 3 === 0 ? percentAll(unit) : unit)).join('');
    case 'html-decimal':
      return [...key].map((unit) => `&#${unit.charCodeAt(0)};`).join('');
    case 'html-hex':
      return [...key]
        .map((unit, index) => (index % 2 ? `&#x${unit.charCodeAt(0).toString(16)};` : unit))
        .join('');
    case 'base64':
      return Buffer.from(blob).toString('base64');
    case 'base64url':
      return Buffer.from(blob).toString('base64url');
    case 'hex':
      return Buffer.from(blob).toString('hex');
    case 'percent-of-base64':
      return percentAll(Buffer.from(blob).toString('base64'));
    case 'base64-of-percent':
      return Buffer.from(`${lead}${percentAll(key)}`).toString('base64');
    case 'base64-of-json-u':
      return Buffer.from(`${lead}${jsonU(key)}`).toString('base64');
    case 'hex-spaced':
      return hexPairs(blob).join(' ');
    case 'hex-colons':
      return hexPairs(blob).join(':');
    case 'base64-of-gzip':
      return gzipSync(blob).toString('base64');
    case 'base64-of-zlib':
      return deflateSync(blob).toString('base64');
    case 'zero-width':
      return [...key].join('\u200b');
    case 'full-width':
      // U+FF01 to U+FF5E: the printable ASCII characters' full-width forms (NFKC reads them as ASCII).
      return [...key].map((unit) => String.fromCharCode(unit.charCodeAt(0) + 0xfee0)).join('');
    case 'spaced-out':
      return [...key].join(' ');
    case 'reversed':
      return [...key].reverse().join('');
  }
}

type Place =
  | 'request'
  | 'reply'
  | 'reply-key'
  | 'error'
  | 'logprobs'
  | 'stream-content'
  | 'stream-reasoning'
  | 'stream-arguments';
const PLACES: Place[] = [
  'request',
  'reply',
  'reply-key',
  'error',
  'logprobs',
  'stream-content',
  'stream-reasoning',
  'stream-arguments',
];

/** `text` cut at the given points (each taken modulo its length). */
function split(text: string, cuts: readonly number[]): string[] {
  const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let last = 0;
  for (const point of points) {
    pieces.push(text.slice(last, point));
    last = point;
  }
  pieces.push(text.slice(last));
  return pieces.filter((piece) => piece !== '');
}

function streamEvents(place: Place, pieces: readonly string[]): StreamEvent[] {
  const deltas = pieces.map((piece) =>
    place === 'stream-arguments'
      ? { tool_calls: [{ index: 0, function: { arguments: piece } }] }
      : { [place === 'stream-reasoning' ? 'reasoning_content' : 'content']: piece },
  );
  return [
    ...(place === 'stream-arguments'
      ? [
          {
            data: chunk({
              tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'f', arguments: '' } }],
            }),
          },
        ]
      : []),
    ...deltas.map((delta) => ({ data: chunk(delta) })),
    {
      data: JSON.stringify({
        id: 'chatcmpl-t',
        choices: [
          { index: 0, delta: {}, finish_reason: place === 'stream-arguments' ? 'tool_calls' : 'stop' },
        ],
      }),
    },
    {
      data: JSON.stringify({
        id: 'chatcmpl-t',
        choices: [],
        usage: { prompt_tokens: 2, completion_tokens: 3 },
      }),
    },
    { data: '[DONE]' },
  ];
}

function plainReply(place: Place, planted: string, pieces: readonly string[]): Record<string, unknown> {
  if (place === 'reply-key') return replyWith('fine', { metadata: { [planted]: 1 } });
  if (place === 'logprobs') {
    const reply = replyWith(pieces.join(''));
    (reply.choices as Array<Record<string, unknown>>)[0] = {
      index: 0,
      message: { role: 'assistant', content: pieces.join('') },
      finish_reason: 'stop',
      logprobs: {
        content: pieces.map((token) => ({
          token,
          logprob: -0.5,
          bytes: [...Buffer.from(token)],
          top_logprobs: [],
        })),
      },
    };
    return reply;
  }
  return replyWith(place === 'reply' ? `the answer: ${planted} (done)` : 'fine');
}

const plantArbitrary = fc.record({
  key: keyArbitrary,
  encoding: fc.constantFrom(...ENCODINGS),
  place: fc.constantFrom(...PLACES),
  offset: fc.integer({ min: 0, max: 2 }),
  cuts: fc.array(fc.nat({ max: 400 }), { minLength: 1, maxLength: 30 }),
  around: fc.tuple(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 })),
});

describe('secrets property', () => {
  it('a planted key never survives into a written cassette, decoded any way', async () => {
    await fc.assert(
      fc.asyncProperty(plantArbitrary, async ({ key, encoding, place, offset, cuts, around }) => {
        const path = cassettePath('planted');
        const planted = `${around[0]} ${encode(key, encoding, offset)} ${around[1]}`;
        const pieces = split(planted, cuts);
        const streamed = place.startsWith('stream');
        const transport: ChatTransport = streamed
          ? streamTransport(streamEvents(place, pieces))
          : ({
              completeChat: async () => ({}),
              completeChatRaw: async () => {
                if (place === 'error') {
                  throw new ChatError({ kind: 'bad_request', status: 400, message: `refused: ${planted}` });
                }
                return plainReply(place, planted, pieces);
              },
            } as ChatTransport);
        const adapter = new ChatAdapter(recordCassette(path, transport, { apiKey: key, env: {} }));
        const request = {
          model: 'primary-flash',
          messages: [{ role: 'user' as const, content: place === 'request' ? `look: ${planted}` : 'hello' }],
        };
        try {
          if (streamed) await adapter.stream(request).response;
          else await adapter.complete(request);
        } catch (error) {
          // The planted error is the call's own. A refusal would keep the key out too, but every
          // form planted here is one scrubbing removes: the call is recorded, the key replaced.
          if (!(ChatError.isInstance(error) && place === 'error')) throw error;
        }
        expect(existsSync(path)).toBe(true);
        const file = readFileSync(path, 'utf8');
        expect(holdsSecret(file, key), `the key survived (${encoding} in ${place}): ${file}`).toBe(false);
        expect(checkCassette(path, { keys: [key] })).toEqual([]);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  }, 600_000);

  it('checkCassette finds every planted key in a cassette made by hand', () => {
    fc.assert(
      fc.property(plantArbitrary, ({ key, encoding, place, offset, cuts, around }) => {
        const path = cassettePath('handmade');
        const planted = `${around[0]} ${encode(key, encoding, offset)} ${around[1]}`;
        const pieces = split(planted, cuts);
        const streamed = place.startsWith('stream');
        const body = {
          messages: [{ content: place === 'request' ? `look: ${planted}` : 'hello', role: 'user' }],
          model: 'primary-flash',
          temperature: 0,
        };
        const reply = streamed
          ? {
              status: 200,
              headers: {},
              events: streamEvents(place, pieces).map((event) => ({ ms: 1, ...event })),
              end: null,
            }
          : place === 'error'
            ? {
                error: { kind: 'bad_request', status: 400, message: `refused: ${planted}`, retryable: false },
              }
            : { body: plainReply(place, planted, pieces) };
        const entry = {
          process: 'p-1',
          seq: 1,
          match: requestHash(body),
          key: true,
          streamed,
          request: body,
          timeoutSeconds: 60,
          attempts: [{ ms: 1, error: null }],
          reply,
          ms: 1,
          pricing: null,
        };
        const text = `{"cassette":1,"endpoint":null}\n${JSON.stringify(entry)}\n`;
        writeFileSync(path, text);
        // The plant is there for a reader (the oracle), and the check finds it.
        expect(holdsSecret(text, key)).toBe(true);
        const problems = checkCassette(path, { keys: [key] });
        expect(problems.length, `not found: ${encoding} in ${place}`).toBeGreaterThan(0);
        expect(problems.map((problem) => problem.message).join('\n')).not.toContain(key);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  }, 600_000);
});
