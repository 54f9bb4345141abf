import { readFileSync, writeFileSync } from 'node:fs';
import { FetchTransport } from '@switchboard/adapter';
import { describe, expect, it } from 'vitest';
import {
  CassetteFormatError,
  examineCassette,
  readCassette,
  recordCassette,
  replayCassette,
} from '../src/index.js';
import { cassettePath } from './support/cassette-path.js';
import { longStreamData, serveDuringTests, startSseServer, streamedText } from './support/sse-server.js';

// A long stream's line, written compactly (cassette version 2): the common chunk's bytes once, each
// run of its events a list of delays and a list of texts. Read back, it is the events as they came; a secret in any part
// of it is found by the check; a hostile one is refused before it grows.
const KEY = 'compact-line-key-0123456789';
const EVENTS = 2000;
const DATA = longStreamData(EVENTS);
const url = serveDuringTests(DATA);

async function recorded(name: string): Promise<string> {
  const path = cassettePath(name);
  const transport = recordCassette(path, new FetchTransport({ apiKey: KEY, baseUrl: url() }), {
    apiKey: KEY,
    env: {},
  });
  await streamedText(transport);
  return path;
}

interface CompactRun {
  t: number;
  ms: number[];
  text: string[];
  [field: string]: unknown;
}

interface CompactLine {
  reply: { templates: [string, string][]; events: Array<Record<string, unknown>> };
}

function lines(path: string): string[] {
  return readFileSync(path, 'utf8').split('\n').filter(Boolean);
}

function editLine(path: string, edit: (entry: CompactLine) => void): void {
  const [header, line] = lines(path);
  const entry = JSON.parse(line as string) as CompactLine;
  edit(entry);
  writeFileSync(path, `${header}\n${JSON.stringify(entry)}\n`);
}

/** The first run of compact events (`{t, ms, text}`) of a line, to edit. */
function firstRun(entry: CompactLine): CompactRun {
  const run = entry.reply.events.find((event) => 't' in event);
  if (run === undefined) throw new Error('no compact run in the line');
  return run as CompactRun;
}

describe('a long stream written compactly', () => {
  it('keeps the common chunk once and each event as its text, and reads back as the events came', async () => {
    const path = await recorded('compact');
    const [header, line] = lines(path);
    expect(JSON.parse(header as string).cassette).toBe(2);
    const entry = JSON.parse(line as string) as CompactLine;
    expect(entry.reply.templates).toHaveLength(1);
    // The content chunks after the first (parsed, to learn the template) are one run.
    expect(entry.reply.events.filter((event) => 't' in event)).toHaveLength(1);
    expect(firstRun(entry).text).toHaveLength(EVENTS - 1);
    // The whole events written out would be several times the line.
    const full = JSON.stringify(DATA.map((data) => ({ ms: 0, data })));
    expect((line as string).length * 4).toBeLessThan(full.length);
    const reply = readCassette(path).entries[0]?.reply as { events: Array<{ data?: string }> } | undefined;
    expect(reply?.events.map((event) => event.data)).toEqual(DATA);
    expect(examineCassette(path, { keys: [KEY] }).problems).toEqual([]);
    expect(await streamedText(replayCassette(path, { apiKey: 'replay' }))).toBe(
      Array.from({ length: EVENTS }, (_, index) => ` w${index}`).join(''),
    );
  });

  it('is checked as its events: a key in the common chunk, or split over two texts, is found', async () => {
    const inChunk = await recorded('compact-key-in-chunk');
    editLine(inChunk, (entry) => {
      const template = entry.reply.templates[0] as [string, string];
      template[0] = template[0].replace('chatcmpl-long', `chatcmpl-${KEY}`);
    });
    const [problem] = examineCassette(inChunk, { keys: [KEY] }).problems;
    expect(problem?.message).toMatch(/^holds the API key .* at \$\.reply\.events\[\]\.json\.id/);

    const split = await recorded('compact-key-split');
    editLine(split, (entry) => {
      const run = firstRun(entry);
      run.text[10] = KEY.slice(0, 12);
      run.text[11] = KEY.slice(12);
    });
    const found = examineCassette(split, { keys: [KEY] }).problems;
    expect(found[0]?.message).toBe(
      'holds the API key (as is, split across 2 strings) at $.reply.events[].json.choices[#0].delta.content',
    );
  });

  it('writes an event that does not read as written (a key given twice) back as standard JSON beside the runs', async () => {
    // The first `id` is what no parse of the event sees: kept as it came, its key would reach the file unscanned.
    const hidden = `{"id":"${KEY}","id":"chatcmpl-long","object":"chat.completion.chunk","created":1764100000,"model":"primary-flash","choices":[{"index":0,"delta":{"content":" x"},"finish_reason":null}]}`;
    const data = [...DATA.slice(0, 20), hidden, ...DATA.slice(20)];
    const server = await startSseServer(data);
    try {
      const path = cassettePath('compact-key-given-twice');
      await streamedText(
        recordCassette(path, new FetchTransport({ apiKey: KEY, baseUrl: server.url }), {
          apiKey: KEY,
          env: {},
        }),
      );
      const text = readFileSync(path, 'utf8');
      expect(text).not.toContain(KEY);
      const entry = JSON.parse(lines(path)[1] as string) as CompactLine;
      // Compact runs before and after it, and the event itself as one parse of it reads.
      expect(entry.reply.events.filter((event) => 't' in event)).toHaveLength(2);
      expect(entry.reply.events).toContainEqual({
        ms: expect.any(Number),
        data: JSON.stringify(JSON.parse(hidden)),
      });
      expect(examineCassette(path, { keys: [KEY] }).problems).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('scans strings a chunk holds on one path joined event by event, as a reader of the line does', async () => {
    // Each chunk's "parts" are one text ("AB" then "CD"): over the events, "ABCDABCD…", which holds the secret.
    const chunk = (content: string) =>
      JSON.stringify({
        id: 'chatcmpl-parts',
        parts: ['AB', 'CD'],
        choices: [{ index: 0, delta: { content } }],
      });
    const secret = 'CDABCDABCD';
    const parts = await startSseServer([
      ...Array.from({ length: 50 }, (_, index) => chunk(` w${index}`)),
      '[DONE]',
    ]);
    try {
      const path = cassettePath('compact-shared-path');
      const transport = new FetchTransport({ apiKey: KEY, baseUrl: parts.url });
      await streamedText(recordCassette(path, transport, { apiKey: KEY, secrets: [secret], env: {} }));
      expect(examineCassette(path, { keys: [KEY, secret] }).problems).toEqual([]);
      expect(readFileSync(path, 'utf8')).toContain('[secret removed]');
    } finally {
      await parts.close();
    }
  });

  it.each([
    [
      'a template that is not a pair',
      (entry: CompactLine) => (entry.reply.templates = [['x']] as never),
      'reply.templates[0]',
    ],
    ['no template', (entry: CompactLine) => (entry.reply.templates = []), 'reply.templates'],
    ['a template number past the list', (entry: CompactLine) => (firstRun(entry).t = 1), 'reply.events[2]"'],
    [
      'a text holding a quote',
      (entry: CompactLine) => (firstRun(entry).text[3] = 'a"b'),
      'reply.events[2].text[3]',
    ],
    [
      'a text holding a backslash',
      (entry: CompactLine) => (firstRun(entry).text[0] = 'a\\u0041'),
      'reply.events[2].text[0]',
    ],
    [
      'a text that is a number',
      (entry: CompactLine) => (firstRun(entry).text[0] = 7 as never),
      'reply.events[2].text[0]',
    ],
    ['delays and texts of two lengths', (entry: CompactLine) => firstRun(entry).ms.pop(), 'reply.events[2]"'],
    ['a field more', (entry: CompactLine) => (firstRun(entry).data = 'x'), 'reply.events[2]"'],
  ])('refuses a compact line with %s, naming the field', async (_name, edit, field) => {
    const path = await recorded('compact-hostile');
    editLine(path, edit);
    expect(() => readCassette(path)).toThrow(CassetteFormatError);
    expect(() => readCassette(path)).toThrow(`"${field}`);
    expect(() => examineCassette(path)).toThrow(`"${field}`);
  });

  it('refuses a line whose events would grow past a live stream before making them', async () => {
    const path = await recorded('compact-bomb');
    // 1,000 events of one 1,000-character text under a template of 17,000 bytes: 18 MB from a 1 MB line.
    editLine(path, (entry) => {
      const template = entry.reply.templates[0] as [string, string];
      template[0] = `${template[0]}${' '.repeat(17_000)}`;
      entry.reply.events = [{ t: 0, ms: Array(1000).fill(0), text: Array(1000).fill('x'.repeat(1000)) }];
    });
    expect(() => readCassette(path)).toThrow(
      '"reply.events" must be at most 16777216 bytes in all (a live reply\'s cap)',
    );
  });
});
