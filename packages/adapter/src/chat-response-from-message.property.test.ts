import { anythingAtAll } from '@switchboard/test-support';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatResponse } from './chat-response.js';
import { chatResponseFromMessage } from './chat-response-from-message.js';
import { toAssistantMessage } from './to-assistant-message.js';

const RUNS = { numRuns: 2_000 };

const loose = fc.jsonValue({ maxDepth: 2 });

/** A value that is sometimes right for a field and sometimes any JSON at all. */
function mostly<T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 4, arbitrary }, { weight: 1, arbitrary: loose });
}

const toolCall = fc.record(
  {
    id: mostly(fc.string()),
    type: mostly(fc.constantFrom('function', 'custom')),
    function: mostly(
      fc.record(
        {
          name: mostly(fc.string()),
          arguments: mostly(fc.oneof(fc.json(), fc.string(), fc.dictionary(fc.string(), loose))),
        },
        { requiredKeys: [] },
      ),
    ),
  },
  { requiredKeys: [] },
);

const logprobToken = fc.record(
  {
    token: mostly(fc.string()),
    logprob: mostly(fc.oneof(fc.double(), fc.double({ max: 0, noNaN: true }))),
  },
  { requiredKeys: [] },
);

/** Reply messages that are nearly right: every field optional, each sometimes of the wrong type. */
const nearMessage = fc.record(
  {
    role: mostly(fc.constant('assistant')),
    content: mostly(fc.oneof(fc.string(), fc.constant(null))),
    reasoning_content: mostly(fc.oneof(fc.string(), fc.constant(null))),
    reasoning: mostly(fc.string()),
    tool_calls: mostly(fc.array(mostly(toolCall), { maxLength: 4 })),
    logprobs: mostly(
      fc.oneof(
        fc.record({ content: mostly(fc.array(mostly(logprobToken), { maxLength: 6 })) }),
        fc.constant(null),
      ),
    ),
    finish_reason: mostly(fc.constantFrom('stop', 'length', 'tool_calls')),
  },
  { requiredKeys: [] },
);

/** The valid logprobs a message carries (finite, above the -9999 sentinel, not positive), as chatResponseFromMessage should average them. */
function finiteLogprobs(message: unknown): number[] {
  const logprobs = (message as { logprobs?: { content?: unknown } } | null)?.logprobs;
  const content = logprobs?.content;
  if (!Array.isArray(content)) return [];
  return content.flatMap((token: unknown) => {
    const logprob = (token as { logprob?: unknown } | null)?.logprob;
    return typeof logprob === 'number' && logprob > -9999 && logprob <= 0 ? [logprob] : [];
  });
}

function expectWellFormed(response: ChatResponse): void {
  expect(Object.isFrozen(response)).toBe(true);
  expect(response.content === null || typeof response.content === 'string').toBe(true);
  expect(
    response.reasoning === null || (typeof response.reasoning === 'string' && response.reasoning !== ''),
  ).toBe(true);
  expect(response.finishReason === null || typeof response.finishReason === 'string').toBe(true);
  expect(response.meanLogprob === null || Number.isFinite(response.meanLogprob)).toBe(true);
  expect(Array.isArray(response.toolCalls)).toBe(true);
  expect(Object.isFrozen(response.toolCalls)).toBe(true);
  for (const call of response.toolCalls) {
    expect(typeof call.id).toBe('string');
    expect(typeof call.name).toBe('string');
    expect(call.name).not.toBe('');
    expect(
      typeof call.arguments === 'object' && call.arguments !== null && !Array.isArray(call.arguments),
    ).toBe(true);
  }
}

describe('chatResponseFromMessage (property-based)', () => {
  describe('for any value as the message', () => {
    it('never throws and returns a well-formed response for any JSON value', () => {
      fc.assert(
        fc.property(fc.jsonValue(), (message) => {
          expectWellFormed(chatResponseFromMessage(message));
        }),
        RUNS,
      );
    });

    it('never throws and returns a well-formed response for anything at all', () => {
      fc.assert(
        fc.property(anythingAtAll, (message) => {
          expectWellFormed(chatResponseFromMessage(message));
        }),
        RUNS,
      );
    });

    it('never throws and returns a well-formed response for nearly right reply messages', () => {
      fc.assert(
        fc.property(nearMessage, (message) => {
          expectWellFormed(chatResponseFromMessage(message));
        }),
        RUNS,
      );
    });

    // fast-check itself cannot hold these (it looks into every value it generates), so they are listed.
    it.each([
      ['a proxy whose traps throw', 'proxy'],
      ['a revoked proxy', 'revoked'],
      ['throwing getters', 'getters'],
    ])('never throws for a hand-made message that throws when read (%s)', (_, kind) => {
      const fail = () => {
        throw new Error('hostile');
      };
      const revoked = Proxy.revocable({}, {});
      revoked.revoke();
      const message =
        kind === 'proxy'
          ? new Proxy({}, { get: fail, getPrototypeOf: fail, has: fail, ownKeys: fail })
          : kind === 'revoked'
            ? revoked.proxy
            : Object.defineProperties(
                {},
                Object.fromEntries(
                  ['content', 'tool_calls', 'logprobs', 'reasoning_content'].map((key) => [
                    key,
                    { get: fail },
                  ]),
                ),
              );
      expectWellFormed(chatResponseFromMessage(message));
    });
  });

  describe('meanLogprob', () => {
    it('lies between the smallest and largest valid logprob, or is null when there is none', () => {
      const numericLogprobs = fc
        .array(fc.oneof(fc.double(), fc.double({ max: 0, noNaN: true })), { maxLength: 8 })
        .map((values) => ({ logprobs: { content: values.map((logprob) => ({ token: 't', logprob })) } }));
      fc.assert(
        fc.property(fc.oneof(nearMessage, numericLogprobs), (message) => {
          const values = finiteLogprobs(message);
          const mean = chatResponseFromMessage(message).meanLogprob;
          if (values.length === 0) {
            expect(mean).toBeNull();
            return;
          }
          expect(mean).not.toBeNull();
          expect(mean as number).toBeGreaterThanOrEqual(Math.min(...values));
          expect(mean as number).toBeLessThanOrEqual(Math.max(...values));
        }),
        RUNS,
      );
    });
  });

  describe('toAssistantMessage of the response', () => {
    it('never throws and gives a JSON-serialisable assistant turn for any JSON value or near message', () => {
      fc.assert(
        fc.property(fc.oneof(fc.jsonValue(), nearMessage), (message) => {
          const turn = toAssistantMessage(chatResponseFromMessage(message));
          expect(turn.role).toBe('assistant');
          expect(() => JSON.stringify(turn)).not.toThrow();
        }),
        RUNS,
      );
    });
  });
});
