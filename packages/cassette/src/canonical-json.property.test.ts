import type { TransportRequest } from '@switchboard/adapter';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, requestHash } from './canonical-json.js';
import { wireBody } from './wire-body.js';

/** The same JSON value with every object's keys in a shuffled order (decided by `seed`). */
function shuffled(value: unknown, seed: number): unknown {
  if (Array.isArray(value)) return value.map((item, index) => shuffled(item, seed + index));
  if (typeof value !== 'object' || value === null) return value;
  const keys = Object.keys(value);
  const order = keys
    .map((key, index) => ({ key, rank: Math.sin(seed * 7919 + index * 104729) }))
    .sort((a, b) => a.rank - b.rank);
  const copy: Record<string, unknown> = Object.create(null);
  for (const { key } of order) copy[key] = shuffled((value as Record<string, unknown>)[key], seed + 1);
  return copy;
}

const message = fc.record(
  { role: fc.constantFrom('system', 'user', 'assistant', 'tool'), content: fc.string(), name: fc.string() },
  { requiredKeys: ['role', 'content'] },
);
const request: fc.Arbitrary<TransportRequest> = fc.record({
  model: fc.constantFrom('primary-flash', 'primary-v4-pro', 'custom-model'),
  messages: fc.array(message, { minLength: 1, maxLength: 4 }),
  tools: fc.option(
    fc.array(fc.dictionary(fc.string({ minLength: 1 }), fc.jsonValue()), { minLength: 1, maxLength: 2 }),
    {
      nil: undefined,
    },
  ),
  timeoutSeconds: fc.integer({ min: 1, max: 600 }),
  extraBody: fc.record(
    {
      thinking: fc.constant({ type: 'disabled' }),
      temperature: fc.double({ min: 0, max: 2, noNaN: true }),
      response_format: fc.constant({ type: 'json_object' }),
      logprobs: fc.constant(true),
      top_logprobs: fc.constant(1),
      max_tokens: fc.integer({ min: 1, max: 4096 }),
    },
    { requiredKeys: [] },
  ),
}) as fc.Arbitrary<TransportRequest>;

/** Every leaf path of a JSON value, as lists of keys and indexes. */
function leafPaths(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value) && value.length > 0)
    return value.flatMap((item, index) => leafPaths(item, [...path, index]));
  if (typeof value === 'object' && value !== null && Object.keys(value).length > 0) {
    return Object.entries(value).flatMap(([key, field]) => leafPaths(field, [...path, key]));
  }
  return [path];
}

/** A copy with the leaf at `path` replaced by `replacement`. */
function withLeaf(value: unknown, path: (string | number)[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path as [string | number, ...(string | number)[]];
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<
    string | number,
    unknown
  >;
  copy[head] = withLeaf(copy[head], rest, replacement);
  return copy;
}

describe('requestHash', () => {
  it('is the same whatever the key order and whitespace of the request', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer(), fc.integer({ min: 0, max: 8 }), (value, seed, indent) => {
        const reformatted = JSON.parse(JSON.stringify(shuffled(value, seed), null, indent)) as unknown;
        expect(requestHash(reformatted)).toBe(requestHash(value));
        expect(canonicalJson(reformatted)).toBe(canonicalJson(value));
      }),
    );
  });

  it('is the same for requests that differ only in what never reaches the wire', () => {
    fc.assert(
      fc.property(request, fc.integer({ min: 1, max: 600 }), fc.integer(), (sent, timeout, seed) => {
        const other = {
          ...(shuffled(sent, seed) as TransportRequest),
          timeoutSeconds: timeout,
          signal: new AbortController().signal,
          beforeAttempt: () => {},
        };
        expect(requestHash(wireBody(other, false))).toBe(requestHash(wireBody(sent, false)));
      }),
    );
  });

  it('changes with any field that reaches the wire', () => {
    fc.assert(
      fc.property(request, fc.nat(), fc.jsonValue(), (sent, pick, replacement) => {
        const body = wireBody(sent, false);
        const paths = leafPaths(body);
        const path = paths[pick % paths.length] as (string | number)[];
        const changed = withLeaf(body, path, replacement);
        fc.pre(canonicalJson(changed) !== canonicalJson(body));
        expect(requestHash(changed)).not.toBe(requestHash(body));
      }),
    );
  });

  it('tells a streamed call from a plain one, and a model, message or extra-body change from none', () => {
    fc.assert(
      fc.property(request, (sent) => {
        const plain = requestHash(wireBody(sent, false));
        expect(requestHash(wireBody(sent, true))).not.toBe(plain);
        expect(requestHash(wireBody({ ...sent, model: `${sent.model}-x` }, false))).not.toBe(plain);
        expect(
          requestHash(
            wireBody({ ...sent, messages: [...sent.messages, { role: 'user', content: '' }] }, false),
          ),
        ).not.toBe(plain);
        expect(requestHash(wireBody({ ...sent, extraBody: { ...sent.extraBody, seed: 1 } }, false))).not.toBe(
          plain,
        );
      }),
    );
  });
});
