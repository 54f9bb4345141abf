import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ArrivedEvents } from './arrived-events.js';
import { usageOfEvents } from './call-pricing.js';
import { expandCompactReply, lineReplyJson, writeCompactly } from './compact-events.js';
import { collectInto, PathNode } from './json-paths.js';
import { expandEvent } from './json-secrets.js';
import { CASSETTE_LIMITS } from './read-cassette.js';

const SEED = Number(process.env.FAST_CHECK_SEED ?? 4006);

/** Texts a chunk is matched with (no escapes): a stretch goes on over them. */
const plainText = fc.constantFrom(' a', ' bb', ' w1', '漢', ' été', ' some longer text here');
const text = fc.oneof(
  { weight: 6, arbitrary: plainText },
  { weight: 1, arbitrary: fc.string({ maxLength: 6 }) },
);

/** A stream chunk of `id` with `content`, sometimes with a usage. */
const chunkData = (id: string, content: string, usage: boolean) =>
  JSON.stringify({
    id,
    model: 'primary-flash',
    choices: [{ index: 0, delta: { content }, finish_reason: null }],
    ...(usage ? { usage: { prompt_tokens: 3, completion_tokens: 5 } } : {}),
  });

const id = fc.constantFrom('chatcmpl-1', 'chatcmpl-2');

/** A long run of chunks of one id with texts matched as they are: past a stretch's batches when its template is learned. */
const longRun = fc
  .tuple(id, fc.array(plainText, { minLength: 200, maxLength: 900 }))
  .map(([i, texts]) => texts.map((t) => ({ data: chunkData(i, t, false) })));

/** Events a stream may carry: a chunk, a long run, the odd other one. */
const events = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.tuple(id, text, fc.boolean()).map(([i, t, u]) => [{ data: chunkData(i, t, u) }]),
  },
  { weight: 1, arbitrary: longRun },
  { weight: 1, arbitrary: fc.constant([{ data: '[DONE]' }]) },
  { weight: 1, arbitrary: fc.constant([{ event: 'ping', data: '{}' }]) },
  { weight: 1, arbitrary: fc.constant([{ data: '{"id":"x","id":"y","choices":[]}' }]) },
  { weight: 1, arbitrary: fc.constant([{ data: 'not json' }]) },
);

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The text each path's strings make together (what a scan reads). */
function textsByPath(root: PathNode): Map<string, string> {
  const texts = new Map<string, string>();
  for (const node of root.groups()) texts.set(node.path, node.texts().join(''));
  return texts;
}

describe('events taken as they arrive (property)', () => {
  it('give back every event, its usage, its line and its strings, whatever the order of chunks and others', () => {
    fc.assert(
      fc.property(
        fc.option(longRun, { nil: [] }),
        fc.array(events, { maxLength: 60 }),
        fc.nat(40),
        (first, groups, pace) => {
          // A long run first: its chunks are matched against the template its first one taught (a stretch past its batches).
          const taken = [first, ...groups]
            .flat()
            .map((item, index) => [(index * 7 + pace) % 41, item] as const);
          const arrived = new ArrivedEvents();
          // Most taken as they arrive; after the first run, every fifth (by the pace) given as recorded (as a replay passes events on).
          taken.forEach(([ms, item], index) => {
            if (index >= first.length && (index + pace) % 5 === 0) arrived.push({ ms, ...item });
            else arrived.take(ms, item);
          });
          const expected = taken.map(([ms, item]) => ({ ms, ...item }));
          expect(arrived.recorded).toEqual(expected);
          expect(arrived.usage()).toEqual(usageOfEvents(expected) ?? null);
          expect(arrived.asIs).toHaveLength(expected.length);
          const unchanged = arrived.unchanged();
          unchanged.forEach((written, index) => {
            const came = expected[index] as { data?: string };
            // Kept as it came, or (a chunk not kept so) written back as the same JSON.
            if ((arrived.asIs[index] as boolean) || typeof came.data !== 'string' || !isJson(came.data)) {
              expect(written).toEqual(came);
            } else expect(JSON.parse((written as { data: string }).data)).toEqual(JSON.parse(came.data));
          });
          const line = arrived.lineEvents();
          if (line !== null) {
            const parsed = JSON.parse(
              JSON.stringify({ reply: { templates: line.templates, events: line.events } }),
            );
            const back = expandCompactReply(parsed, CASSETTE_LIMITS, (field, wanted) => {
              throw new Error(`${field} must be ${wanted}`);
            }) as { reply: { events: unknown } };
            expect(back.reply.events).toEqual(unchanged);
            // The line as the writer makes it (texts from their parts) is what JSON.stringify makes of it.
            const reply = { status: 200, headers: { 'x-request-id': 'r' }, events: unchanged, end: null };
            writeCompactly(reply, line);
            const standard = {
              status: 200,
              headers: reply.headers,
              templates: line.templates,
              events: line.events,
              end: null,
            };
            expect(lineReplyJson(reply)).toBe(JSON.stringify(standard));
          }
          // The strings a scan reads: as collecting every event parsed would give them.
          const scanned = new PathNode('$');
          arrived.collectInto(scanned, new Map());
          const reference = new PathNode('$');
          const element = reference.element(null);
          for (const item of expected) collectInto(expandEvent(item), element, new Map());
          expect(textsByPath(scanned)).toEqual(textsByPath(reference));
        },
      ),
      { numRuns: 120, seed: SEED, verbose: true },
    );
  });
});
