import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CallJournal } from './call-journal.js';
import { USAGE_COUNT_FIELDS, USAGE_DETAIL_FIELDS } from './journal-limits.js';
import { journalEndpoint, journalLineText } from './journal-line.js';
import { parseJournalLine } from './read-journal.js';
import { reportJournal } from './report-journal.js';
import { SETTLEMENT_KINDS } from './settlement.js';
import type { TelemetryRecord } from './telemetry-record.js';
import { usageTokens } from './usage-tokens.js';

const ENDPOINT = { provider: 'primary', baseUrl: 'https://api.primary.example', thinking: false };
const ENDPOINT_JSON = JSON.stringify(journalEndpoint(ENDPOINT));

/** Any value a provider's usage count could hold, after the adapter's copy (BigInt from a custom transport). */
const countValue = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(1e308, -1e308, -1, 1e12, 1e12 + 1, Number.MAX_VALUE, -0),
  fc.bigInt(),
  fc.string({ maxLength: 8 }),
  fc.boolean(),
  fc.constantFrom(null, undefined),
  fc.jsonValue({ maxDepth: 2 }),
);

function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: 1 };
  for (let level = 0; level < depth; level++) value = { next: value };
  return value;
}

/** What JSON cannot hold, past the adapter's copy depth (8): it keeps such values as they are. */
const unwritable = fc.constantFrom(
  () => nested(100_000),
  () => {
    const cycle: Record<string, unknown> = { n: 1 };
    cycle.self = cycle;
    return cycle;
  },
  () => 12n,
  () =>
    Object.defineProperty({}, 'boom', {
      enumerable: true,
      get() {
        throw new Error('a getter that throws');
      },
    }),
);

const counts = fc.record(
  Object.fromEntries(USAGE_COUNT_FIELDS.map((field) => [field, countValue])) as Record<
    (typeof USAGE_COUNT_FIELDS)[number],
    typeof countValue
  >,
  { requiredKeys: [] },
);
const details = fc.oneof(
  fc.record({ cached_tokens: countValue, reasoning_tokens: countValue }, { requiredKeys: [] }),
  fc.jsonValue({ maxDepth: 2 }),
);

/** A usage as a provider may send it: counts of any value, details of any shape, other members, what JSON cannot hold. */
const usage = fc.oneof(
  { weight: 1, arbitrary: fc.constant(null) },
  {
    weight: 6,
    arbitrary: fc
      .tuple(
        counts,
        fc.option(details, { nil: undefined }),
        fc.option(details, { nil: undefined }),
        fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
        // One usage in five holds what JSON cannot.
        fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: unwritable }),
      )
      .map(([figures, prompt, completion, others, odd]) => ({
        ...others,
        ...figures,
        ...(prompt === undefined ? {} : { prompt_tokens_details: prompt }),
        ...(completion === undefined ? {} : { completion_tokens_details: completion }),
        ...(odd === undefined ? {} : { deep: { a: { b: { c: { d: { e: { f: { g: { h: odd() } } } } } } } } }),
      })),
  },
);

/** A record as the adapter makes it, with an arbitrary usage. */
const record = fc
  .record({
    model: fc.constantFrom('primary-flash', 'primary-v4-pro', 'house-model'),
    role: fc.constantFrom('judge', 'detector', null),
    usage,
    costNanoUsd: fc.option(fc.integer({ min: 0, max: 5_000_000_000 }), { nil: null }),
    priceSource: fc.constantFrom('table', 'provider', 'estimate'),
    attempts: fc.integer({ min: 0, max: 4 }),
    streamed: fc.boolean(),
    settlement: fc.constantFrom(...SETTLEMENT_KINDS),
    error: fc.option(
      fc.record({
        kind: fc.constantFrom('timeout', 'server', 'rate_limited', 'budget', 'aborted'),
        status: fc.option(fc.integer({ min: 400, max: 599 }), { nil: null }),
        degradation: fc.boolean(),
      }),
      { nil: null },
    ),
    at: fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2026, 11, 31) }),
  })
  .map(
    (figures) =>
      Object.freeze({
        model: figures.model,
        usage: figures.usage,
        costUsd: figures.costNanoUsd === null ? null : figures.costNanoUsd / 1e9,
        costNanoUsd: figures.costNanoUsd,
        pricedAs: figures.costNanoUsd === null ? null : figures.model,
        priceSource: figures.costNanoUsd === null ? null : figures.priceSource,
        tariff: null,
        at: new Date(figures.at).toISOString(),
        durationMs: 120,
        attempts: figures.attempts,
        role: figures.role,
        streamed: figures.streamed,
        firstDeltaMs: null,
        settlement: figures.settlement,
        error: figures.error,
      }) as unknown as TelemetryRecord,
  );

// The token counts a line must keep of a usage, modelled apart from the writer: numbers
// (a BigInt as its number) clamped to 0..1e12, NaN and what is not a number null.
function expectedCount(value: unknown): unknown {
  if (value === undefined || value === null) return value;
  const number = typeof value === 'bigint' ? Number(value) : value;
  if (typeof number !== 'number' || Number.isNaN(number)) return null;
  return Math.min(1e12, Math.max(0, number));
}

function expectedTokens(value: unknown) {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return usageTokens(null);
  const entry = value as Record<string, unknown>;
  const kept: Record<string, unknown> = {};
  for (const field of USAGE_COUNT_FIELDS) kept[field] = expectedCount(entry[field]);
  for (const [name, field] of USAGE_DETAIL_FIELDS) {
    const nested = entry[name];
    kept[name] =
      typeof nested === 'object' && nested !== null && !Array.isArray(nested)
        ? { [field]: expectedCount((nested as Record<string, unknown>)[field]) }
        : null;
  }
  return usageTokens(kept);
}

describe('the journal writes what its reader reads', () => {
  it('gives every record the adapter can make, whatever its usage, a line the reader takes, with its cost, settlement and counts', () => {
    fc.assert(
      fc.property(record, (call) => {
        const text = journalLineText(call, ENDPOINT_JSON, undefined);
        const checked = parseJournalLine(text, 1);
        if ('message' in checked) throw new Error(checked.message);
        expect(checked.costNanoUsd).toBe(call.costNanoUsd);
        expect(checked.settlement).toBe(call.settlement);
        expect(checked.line.model).toBe(call.model);
        expect(checked.line.outcome).toBe(call.error ? call.error.kind : 'ok');
        expect(usageTokens(checked.line.usage)).toEqual(expectedTokens(call.usage));
      }),
      { numRuns: 400 },
    );
  });

  it('writes one line per call through a CallJournal, drops none, and report reads them all with the records’ totals', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'journal-round-trip-'));
    let run = 0;
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(record, { minLength: 1, maxLength: 12 }), async (calls) => {
          run += 1;
          const path = join(directory, `run-${run}.jsonl`);
          const journal = new CallJournal(path, { endpoint: ENDPOINT, exitHooks: false, warn: () => {} });
          for (const call of calls) journal.afterCall(call);
          expect(await journal.close()).toBe(0);
          expect(journal.lines).toBe(calls.length);
          const issues: string[] = [];
          const figures = await reportJournal(path, { onIssue: (issue) => issues.push(issue.message) });
          expect(issues).toEqual([]);
          const { totals } = figures;
          expect(totals.calls).toBe(calls.length);
          expect(totals.failures).toBe(calls.filter((call) => call.error).length);
          expect(totals.attempts).toBe(calls.reduce((sum, call) => sum + call.attempts, 0));
          expect(totals.costNanoUsd).toBe(calls.reduce((sum, call) => sum + (call.costNanoUsd ?? 0), 0));
          const estimates = calls.filter((call) => call.settlement === 'estimate');
          expect(totals.estimatedCalls).toBe(estimates.length);
          expect(totals.estimatedCostNanoUsd).toBe(
            estimates.reduce((sum, call) => sum + (call.costNanoUsd ?? 0), 0),
          );
          expect(totals.unsettledCalls).toBe(calls.filter((call) => call.settlement === 'unsettled').length);
          const tokens = calls.map((call) => expectedTokens(call.usage));
          expect(totals.inputTokens).toBe(tokens.reduce((sum, counted) => sum + counted.input, 0));
          expect(totals.outputTokens).toBe(tokens.reduce((sum, counted) => sum + counted.output, 0));
          rmSync(path);
        }),
        { numRuns: 60 },
      );
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
