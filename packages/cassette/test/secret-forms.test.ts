import { readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { deflateSync, gzipSync } from 'node:zlib';
import {
  ChatAdapter,
  ChatError,
  type ChatTransport,
  type CompleteRequest,
  type TransportRequest,
} from '@switchboard/adapter';
import { describe, expect, it } from 'vitest';
import { checkLine } from '../src/cassette-line.js';
import {
  CassetteFormatError,
  CassetteSecretError,
  checkCassette,
  readCassette,
  recordCassette,
  replayCassette,
  SECRET_MARKER,
  type StreamEvent,
} from '../src/index.js';
import { secretRules } from '../src/secret-scan.js';
import { cassettePath } from './support/cassette-path.js';
import { holdsSecret } from './support/decoded-forms.js';
import {
  chunk,
  contentEvents,
  plainTransport,
  replyWith,
  streamTransport,
} from './support/stub-transports.js';

const KEY = 'live-key-Q7x2m9Vb3kLp8Rt4Zw';
const SK = 'sk-live-4f9a8b7c6d5e4f3a2b1c';
const ask = (content: string, extra: Partial<CompleteRequest> = {}): CompleteRequest => ({
  model: 'primary-flash',
  messages: [{ role: 'user', content }],
  ...extra,
});
const env = {};

function threes(text: string): string[] {
  return text.match(/.{1,3}/gs) ?? [];
}

async function streamed(transport: ChatTransport, path: string, content: string) {
  const adapter = new ChatAdapter(recordCassette(path, transport, { apiKey: KEY, env }));
  const stream = adapter.stream(ask(content));
  let text = '';
  for await (const delta of stream) if (delta.type === 'content') text += delta.text;
  return { text, response: await stream.response };
}

function expectClean(path: string, ...secrets: string[]): string {
  const file = readFileSync(path, 'utf8');
  for (const secret of secrets) expect(holdsSecret(file, secret), `${secret} in ${file}`).toBe(false);
  expect(checkCassette(path, { keys: [KEY] })).toEqual([]);
  return file;
}

describe('secrets in every form a reader could decode', () => {
  it('removes a key the model repeats three characters per stream event, over the joined text', async () => {
    const path = cassettePath('split');
    const answer = `my key is ${KEY}, and the diff had ${SK} in it`;
    const { text } = await streamed(streamTransport(contentEvents(threes(answer))), path, 'repeat it');
    expect(text).toBe(answer);
    expectClean(path, KEY, SK);
    // Replay answers the scrubbed text, split as recorded.
    const replayed = new ChatAdapter(replayCassette(path, { apiKey: 'replay' })).stream(ask('repeat it'));
    let again = '';
    for await (const delta of replayed) if (delta.type === 'content') again += delta.text;
    expect(again).toBe(`my key is ${SECRET_MARKER}, and the diff had ${SECRET_MARKER} in it`);
    expect((await replayed.response).calls[0]?.settlement).toBe('exact');
  });

  it('removes a secret split across reasoning deltas and tool-call argument fragments', async () => {
    const path = cassettePath('split-fields');
    const args = JSON.stringify({ token: SK });
    const events: StreamEvent[] = [
      ...threes(`thinking about ${KEY}`).map((piece) => ({ data: chunk({ reasoning_content: piece }) })),
      {
        data: chunk({
          tool_calls: [
            { index: 0, id: 'call_1', type: 'function', function: { name: 'use', arguments: '' } },
          ],
        }),
      },
      ...threes(args).map((piece) => ({
        data: chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }),
      })),
      { data: JSON.stringify({ id: 'c', choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] }) },
      { data: '[DONE]' },
    ];
    await streamed(streamTransport(events), path, 'tools');
    expectClean(path, KEY, SK);
  });

  it('stores stream events as a reader reads them: JSON escapes and \\/ hide nothing', async () => {
    const path = cassettePath('escaped');
    const slashKey = 'abc/def/ghi/9876543210xyz';
    const escaped = [...KEY].map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    const events: StreamEvent[] = [
      { data: `{"id":"c","choices":[{"index":0,"delta":{"content":"a ${escaped} b"}}]}` },
      { data: `{"id":"c","choices":[{"index":0,"delta":{"content":" ${slashKey.replace(/\//g, '\\/')}"}}]}` },
      { data: '{"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}' },
      { data: '[DONE]' },
    ];
    const adapter = new ChatAdapter(
      recordCassette(path, streamTransport(events), { apiKey: KEY, secrets: [slashKey], env }),
    );
    await adapter.stream(ask('escapes')).response;
    const file = expectClean(path, KEY, slashKey);
    expect(file).not.toContain('\\\\u00');
    expect(file).not.toContain('\\\\/');
  });

  it.each([0, 1, 2])(
    'removes base64 of "Authorization: Bearer <key>" at byte offset %i of a blob, and a 401 body\'s debug field',
    async (offset) => {
      const path = cassettePath('base64');
      const blob = Buffer.from(`${'x'.repeat(offset)}Authorization: Bearer ${KEY}`).toString('base64');
      const debug = Buffer.from(`${'y'.repeat(offset + 5)}key=${KEY};`).toString('base64url');
      let calls = 0;
      const transport: ChatTransport = {
        completeChat: async () => ({}),
        completeChatRaw: async () => {
          calls += 1;
          if (calls === 2) {
            throw new ChatError({
              kind: 'auth',
              status: 401,
              message: `401 {"error":{"message":"bad key","debug":"${debug}"}}`,
            });
          }
          return replyWith(`header: ${blob}`);
        },
      } as ChatTransport;
      const adapter = new ChatAdapter(recordCassette(path, transport, { apiKey: KEY, env }));
      await adapter.complete(ask('one'));
      await expect(adapter.complete(ask('two'))).rejects.toMatchObject({ kind: 'auth' });
      expectClean(path, KEY);
    },
  );

  it('removes the key percent-encoded (every character) and as HTML entities, in requests and replies', async () => {
    const path = cassettePath('percent');
    const percent = [...Buffer.from(KEY)]
      .map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`)
      .join('');
    const entities = [...KEY]
      .map((unit, index) =>
        index % 2 ? `&#${unit.charCodeAt(0)};` : `&#x${unit.charCodeAt(0).toString(16)};`,
      )
      .join('');
    const adapter = new ChatAdapter(
      recordCassette(path, plainTransport(replyWith(`see ${percent} and <b>${entities}</b>`)), {
        apiKey: KEY,
        env,
      }),
    );
    await adapter.complete(ask(`https://x.example/?q=${percent}&k=${entities}`));
    expectClean(path, KEY);
  });

  const hex = (text: string) => [...Buffer.from(text)].map((byte) => byte.toString(16).padStart(2, '0'));
  /** Issue 40 §5: the forms `cassette check` passed. */
  const MORE_FORMS: ReadonlyArray<readonly [string, string]> = [
    ['hex with spaces', hex(KEY).join(' ')],
    ['hex with colons, upper case', hex(KEY).join(':').toUpperCase()],
    ['base64(gzip(key))', gzipSync(KEY).toString('base64')],
    ['base64(gzip) of a header holding it', gzipSync(`Authorization: Bearer ${KEY}`).toString('base64')],
    ['base64(zlib(key))', deflateSync(KEY).toString('base64')],
    ['U+200B between its characters', [...KEY].join('\u200b')],
    ['full-width', [...KEY].map((unit) => String.fromCharCode(unit.charCodeAt(0) + 0xfee0)).join('')],
    ['spaced out', [...KEY].join(' ')],
    ['reversed', [...KEY].reverse().join('')],
  ];

  it.each(MORE_FORMS)('checkCassette finds the key as %s in a cassette made by hand', (_form, planted) => {
    const path = cassettePath('more-forms');
    const reply = replyWith(`the answer: ${planted} (done)`);
    writeFileSync(
      path,
      `{"cassette":1,"endpoint":null}\n${JSON.stringify({ process: 'p-1', seq: 1, match: '0000000000000000', key: true, streamed: false, request: { model: 'primary-flash', messages: [] }, timeoutSeconds: 60, attempts: [{ ms: 1, error: null }], reply: { body: reply }, ms: 1, pricing: null })}\n`,
    );
    const problems = checkCassette(path, { keys: [KEY] }).filter((problem) =>
      problem.message.startsWith('holds'),
    );
    expect(problems.map((problem) => problem.message).join('\n')).toMatch(
      /holds the API key \(.+\) at \$\.reply\.body/,
    );
    expect(JSON.stringify(problems)).not.toContain(KEY);
  });

  it.each(MORE_FORMS)(
    'removes the key as %s from a recording, in a reply and split across stream events',
    async (_form, planted) => {
      const path = cassettePath('more-forms-recorded');
      const adapter = new ChatAdapter(
        recordCassette(path, plainTransport(replyWith(`see ${planted} here`)), { apiKey: KEY, env }),
      );
      await adapter.complete(ask(`look: ${planted}`));
      const { text } = await streamed(
        streamTransport(contentEvents(threes(`x ${planted} y`))),
        path,
        'split',
      );
      expect(text).toBe(`x ${planted} y`);
      expectClean(path, KEY);
    },
  );

  it('names a compressed blob that would decompress past 64 times its size, and never decompresses it whole', () => {
    const path = cassettePath('bomb');
    // 16 MiB of zeros: 16 KiB of gzip, 22 KiB of base64, past 64 times that.
    const bomb = gzipSync(Buffer.alloc(16 * 1024 * 1024)).toString('base64');
    writeFileSync(
      path,
      `{"cassette":1,"endpoint":null}\n${JSON.stringify({ process: 'p-1', seq: 1, match: '0000000000000000', key: true, streamed: false, request: { model: 'primary-flash', messages: [] }, timeoutSeconds: 60, attempts: [{ ms: 1, error: null }], reply: { body: { blob: bomb } }, ms: 1, pricing: null })}\n`,
    );
    const messages = checkCassette(path, { keys: [KEY] }).map((problem) => problem.message);
    expect(messages).toContain(
      'holds compressed data that decompresses past 64 times its size (not looked into) (gzip in base64) at $.reply.body.blob',
    );
  });

  it('refuses to read or record through a symbolic link, dangling or not', async () => {
    const target = cassettePath('target');
    writeFileSync(target, 'precious\n');
    const link = cassettePath('link');
    symlinkSync(target, link);
    const adapter = new ChatAdapter(
      recordCassette(link, plainTransport(replyWith('hi')), { apiKey: KEY, env }),
    );
    await expect(adapter.complete(ask('x'))).rejects.toThrow(/symbolic link/);
    expect(readFileSync(target, 'utf8')).toBe('precious\n');
    expect(() => readCassette(link)).toThrow(/symbolic link/);
    const dangling = cassettePath('dangling');
    symlinkSync(`${target}.missing`, dangling);
    const other = new ChatAdapter(
      recordCassette(dangling, plainTransport(replyWith('hi')), { apiKey: KEY, env }),
    );
    await expect(other.complete(ask('x'))).rejects.toThrow(CassetteFormatError);
    expect(() => readFileSync(`${target}.missing`)).toThrow();
  });

  it('refuses a line a check would find a secret in, naming the form, never the secret', () => {
    const rules = secretRules([KEY]);
    const base64 = Buffer.from(`zz${KEY}`).toString('base64');
    const attempt = () => checkLine('c.jsonl', 'call 1', JSON.stringify({ reply: { body: base64 } }), rules);
    expect(attempt).toThrow(CassetteSecretError);
    expect(attempt).toThrow(/the API key \(base64\)/);
    expect(attempt).not.toThrow(new RegExp(KEY));
  });
});

describe('a line that cannot be written fails its call, streamed or plain', () => {
  it('fails a streamed call whose line is refused, instead of resolving with the line missing', async () => {
    const path = cassettePath('refused-stream');
    const events = contentEvents(['fine ', 'reply']);
    // Another record run takes the file over while the second stream is being read.
    const transport = streamTransport(events, (request: TransportRequest, index: number) => {
      if (request.messages[0]?.content === 'second' && index === 2) {
        writeFileSync(`${path}.other`, '{"cassette":1,"run":"another-run","endpoint":null}\n');
        renameSync(`${path}.other`, path);
      }
    });
    const adapter = new ChatAdapter(recordCassette(path, transport, { apiKey: KEY, env, run: 'this-run' }));
    await adapter.stream(ask('first')).response;
    const stream = adapter.stream(ask('second'));
    const failure = await stream.response.catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(CassetteFormatError);
    expect((failure as Error).message).toMatch(
      /another record run \("another-run"\) took this cassette over/,
    );
    // Nothing of this run's is in the other run's file: only the word that its first call was lost.
    expect(checkCassette(path).map((problem) => problem.message)).toEqual([
      expect.stringMatching(
        /^1 call\(s\) that process .* of run "this-run" recorded to this cassette are not in it/,
      ),
    ]);
  });

  it('fails a plain call whose line is refused, the same way', async () => {
    const path = cassettePath('refused-plain');
    const adapter = new ChatAdapter(
      recordCassette(path, plainTransport(replyWith('ok')), { apiKey: KEY, env, run: 'this-run' }),
    );
    await adapter.complete(ask('first'));
    writeFileSync(`${path}.other`, '{"cassette":1,"run":"another-run","endpoint":null}\n');
    renameSync(`${path}.other`, path);
    await expect(adapter.complete(ask('second'))).rejects.toThrow(CassetteFormatError);
  });
});

describe('replay never scrubs with the placeholder key', () => {
  it.each(['replay', 'k', 'x'])('with the key %j: no miss, no text changed', async (placeholder) => {
    const path = cassettePath('placeholder');
    const requests = [
      ask('replay the last run, keep it exact'),
      ask('make a kx-ray of the keys', { maxTokens: 64 }),
      ask('x marks the spot', { jsonObject: true, logprobs: true }),
    ];
    const recorder = new ChatAdapter(
      recordCassette(
        path,
        plainTransport((request: TransportRequest) =>
          replyWith(`echo: ${String(request.messages.at(-1)?.content)} max_tokens`),
        ),
        { apiKey: KEY, env },
      ),
    );
    const live = [];
    for (const request of requests) live.push((await recorder.complete(request)).content);
    const replay = new ChatAdapter(replayCassette(path, { apiKey: placeholder }));
    for (const [index, request] of requests.entries()) {
      expect((await replay.complete(request)).content).toBe(live[index]);
    }
    const miss = await replay.complete(ask('not recorded: k x replay')).catch((error: unknown) => error);
    expect((miss as Error).message).not.toContain(SECRET_MARKER);
    expect((miss as Error).message).toContain('not recorded: k x replay');
  });

  it('still matches a request that holds the real key, recorded with it removed, when replayed with that key', async () => {
    const path = cassettePath('real-key');
    const recorder = new ChatAdapter(
      recordCassette(path, plainTransport(replyWith('ok')), { apiKey: KEY, env }),
    );
    await recorder.complete(ask(`the key is ${KEY}`));
    const replay = new ChatAdapter(replayCassette(path, { apiKey: KEY }));
    expect((await replay.complete(ask(`the key is ${KEY}`))).content).toBe('ok');
    const miss = await replay.complete(ask(`now ${KEY} again`)).catch((error: unknown) => error);
    expect((miss as Error).message).not.toContain(KEY);
  });
});
