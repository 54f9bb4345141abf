import { promptTokens } from '@switchboard/emulator';
import { sharedEmulator } from '@switchboard/test-support';
import { describe, expect, it } from 'vitest';
import { ChatAdapter, type ChatMessage } from '../../src/index.js';
import { costSum, pricedAs } from '../support/priced-as.js';
import { WIRE_TRANSPORTS, type WireTransportCase } from '../support/wire-transports.js';

// Concurrency (issue 5): many calls in flight on one adapter lose no usage entry, record none
// twice, and keep costUsd() the exact sum; bounded copies keep ledgers of their own.

const KEY = 'reliability-concurrency-key-77d0';
const MODEL = 'primary-flash';
const costModel = pricedAs(MODEL);
const CALLS = 500;
// Generous: 500 calls take well under 5 s on an idle machine, but a shared CI runner may be far slower.
const TEST_TIMEOUT_MS = 60_000;

const emulator = sharedEmulator({ key: KEY });

function newAdapter(wire: WireTransportCase, maxAttempts = 3): ChatAdapter {
  return new ChatAdapter(wire.make({ apiKey: KEY, baseUrl: emulator().url, maxAttempts }), {
    endpoint: costModel,
  });
}

/** Question i: prompts of different lengths, so entries differ from each other. */
function question(index: number): ChatMessage[] {
  return [{ role: 'user', content: `Question ${index}: is service ${'alpha '.repeat(index % 41)}healthy?` }];
}

/** The prompt sizes of the chat requests the emulator answered with 200, sorted. */
function answeredPromptSizes(numbers: ReadonlySet<number> = new Set()): number[] {
  return emulator()
    .requests.filter((received) => !numbers.has(received.number))
    .map((received) => promptTokens(received.body as { messages: unknown[] }).length)
    .sort((a, b) => a - b);
}

function sortedPromptTokens(entries: readonly Record<string, unknown>[]): number[] {
  return entries.map((entry) => entry.prompt_tokens as number).sort((a, b) => a - b);
}

describe.each(WIRE_TRANSPORTS)('over $name', (wire) => {
  describe('ChatAdapter over under concurrency', () => {
    describe(`${CALLS} concurrent complete calls on one adapter`, () => {
      it(
        `records ${CALLS} usage entries, one per reply, and costUsd() is their exact sum`,
        async () => {
          const adapter = newAdapter(wire);
          const responses = await Promise.all(
            Array.from({ length: CALLS }, (_, index) =>
              adapter.complete({ model: MODEL, messages: question(index) }),
            ),
          );

          expect(responses.every((response) => typeof response.content === 'string')).toBe(true);
          expect(emulator().requests).toHaveLength(CALLS);
          expect(adapter.usage).toHaveLength(CALLS);
          expect(sortedPromptTokens(adapter.usage)).toEqual(answeredPromptSizes());
          expect(adapter.costUsd()).toBe(costSum(costModel, adapter.usage));
        },
        TEST_TIMEOUT_MS,
      );

      it(
        'still records exactly one entry per call when some attempts fail and are retried',
        async () => {
          const faulted = Array.from({ length: CALLS / 10 }, (_, index) => (index + 1) * 10);
          const resets = faulted.filter((_, index) => index % 2 === 0);
          const limited = faulted.filter((_, index) => index % 2 === 1);
          emulator().setFaults([
            { requests: resets, reset: true },
            { requests: limited, status: 429, retryAfterMs: 5 },
          ]);
          // A fault hits a request number, not a call: a retry may land on another faulted number, so
          // one call may meet several faults, in any order the machine's speed gives. Each faulted number
          // fails exactly one attempt, so with one attempt more than there are faults no call can run out.
          const adapter = newAdapter(wire, faulted.length + 1);
          await Promise.all(
            Array.from({ length: CALLS }, (_, index) =>
              adapter.complete({ model: MODEL, messages: question(index) }),
            ),
          );

          expect(emulator().requests).toHaveLength(CALLS + faulted.length);
          expect(adapter.usage).toHaveLength(CALLS);
          expect(sortedPromptTokens(adapter.usage)).toEqual(answeredPromptSizes(new Set(faulted)));
          expect(adapter.costUsd()).toBe(costSum(costModel, adapter.usage));
        },
        TEST_TIMEOUT_MS,
      );
    });

    describe('bounded copies running concurrently with their parent', () => {
      it(
        'keep separate ledgers: each holds exactly its own calls, and each costUsd() sums its own',
        async () => {
          const parent = newAdapter(wire);
          const caps = [4, 6, 8];
          const copies = caps.map((cap) => parent.bounded(cap));
          const perAdapter = 50;
          const calls = [parent, ...copies].flatMap((adapter, which) =>
            Array.from({ length: perAdapter }, (_, index) =>
              adapter.complete({ model: MODEL, messages: question(which * perAdapter + index) }),
            ),
          );
          // Interleave the calls of all four adapters.
          await Promise.all(calls);

          expect(emulator().requests).toHaveLength(perAdapter * 4);
          expect(parent.usage).toHaveLength(perAdapter);
          for (const [index, copy] of copies.entries()) {
            const cap = caps[index] as number;
            expect(copy.usage).toHaveLength(perAdapter);
            expect(copy.usage.every((entry) => (entry.completion_tokens as number) <= cap)).toBe(true);
            expect(
              emulator().requests.filter(
                (received) => (received.body as { max_tokens?: number }).max_tokens === cap,
              ),
            ).toHaveLength(perAdapter);
            expect(copy.costUsd()).toBe(costSum(costModel, copy.usage));
          }
          // The parent's answers are uncapped: 16 tokens or more, so no capped entry slipped into its ledger.
          expect(parent.usage.every((entry) => (entry.completion_tokens as number) > Math.max(...caps))).toBe(
            true,
          );
          expect(parent.costUsd()).toBe(costSum(costModel, parent.usage));
          const allEntries = [parent, ...copies].flatMap((adapter) => adapter.usage);
          expect(sortedPromptTokens(allEntries)).toEqual(answeredPromptSizes());
        },
        TEST_TIMEOUT_MS,
      );
    });
  });
});
