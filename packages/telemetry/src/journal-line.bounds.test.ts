import { describe, expect, it } from 'vitest';
import { PRIMARY_JUDGE_CALL, REJECTED_CALL } from './__fixtures__/call-records.js';
import { JOURNAL_LIMITS } from './journal-limits.js';
import { journalEndpoint, journalLineText } from './journal-line.js';
import { parseJournalLine } from './read-journal.js';
import type { TelemetryRecord } from './telemetry-record.js';

const ENDPOINT = JSON.stringify(
  journalEndpoint({ provider: 'primary', baseUrl: 'https://api.primary.example', thinking: false }),
);

/** The line written for a record, as the reader reads it back (it must take it). */
function written(record: object, annotation?: { json: string }): Record<string, unknown> {
  const text = journalLineText(record as TelemetryRecord, ENDPOINT, annotation);
  expect(Buffer.byteLength(text)).toBeLessThanOrEqual(JOURNAL_LIMITS.maxLineBytes);
  const checked = parseJournalLine(text, 1);
  if ('message' in checked) throw new Error(`the reader skipped the line: ${checked.message}`);
  return JSON.parse(text);
}

function withUsage(usage: unknown): object {
  return { ...PRIMARY_JUDGE_CALL, usage };
}

function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: 1 };
  for (let level = 0; level < depth; level++) value = { next: value };
  return value;
}

describe('journalLineText: the line is one its reader takes', () => {
  it('bounds a call id, host and pid the reader would not take, and says so', () => {
    const line = written({ callId: 'c'.repeat(300), host: 42, pid: -1, ...PRIMARY_JUDGE_CALL });
    expect(line.callId).toBe('c'.repeat(JOURNAL_LIMITS.maxNameLength));
    // What cannot be a host or a pid is written null, then the writer's own.
    expect(line.host).toEqual(expect.any(String));
    expect(line.pid).toBe(0);
    expect(line.clamped).toEqual({
      callId: `"${'c'.repeat(40)}…" (300 characters)`,
      host: '42',
      pid: '-1',
    });
  });

  it('writes a record in range as it is, with no clamped field, and its settlement', () => {
    const line = written(PRIMARY_JUDGE_CALL);
    expect(line).toMatchObject({
      usage: PRIMARY_JUDGE_CALL.usage,
      settlement: 'exact',
      costNanoUsd: 210_000,
    });
    expect(line).not.toHaveProperty('clamped');
    expect(line).not.toHaveProperty('usageError');
  });

  it('clamps negative, huge, infinite, NaN and non-numeric token counts, and says so in clamped', () => {
    const line = written(
      withUsage({
        prompt_tokens: -5,
        completion_tokens: 1e308,
        total_tokens: Number.POSITIVE_INFINITY,
        prompt_cache_hit_tokens: Number.NaN,
        prompt_cache_miss_tokens: '12',
        prompt_tokens_details: 'none',
        completion_tokens_details: { reasoning_tokens: -1, other: 'kept' },
        cost: 0.1,
      }),
    );
    expect(line.usage).toEqual({
      prompt_tokens: 0,
      completion_tokens: 1e12,
      total_tokens: 1e12,
      prompt_cache_hit_tokens: null,
      prompt_cache_miss_tokens: null,
      prompt_tokens_details: null,
      completion_tokens_details: { reasoning_tokens: 0, other: 'kept' },
      cost: 0.1,
    });
    expect(line.clamped).toEqual({
      'usage.prompt_tokens': '-5',
      'usage.completion_tokens': '1e+308',
      'usage.total_tokens': 'Infinity',
      'usage.prompt_cache_hit_tokens': 'NaN',
      'usage.prompt_cache_miss_tokens': '"12"',
      'usage.prompt_tokens_details': '"none"',
      'usage.completion_tokens_details.reasoning_tokens': '-1',
    });
  });

  it.each([
    ['too deep to write', () => ({ prompt_tokens: 10, completion_tokens: 4, deep: nested(200_000) })],
    [
      'a cycle',
      () => {
        const cycle: Record<string, unknown> = { prompt_tokens: 10, completion_tokens: 4 };
        cycle.self = cycle;
        return cycle;
      },
    ],
    ['a BigInt', () => ({ prompt_tokens: 10, completion_tokens: 4, cost: 5n })],
    [
      'a throwing getter',
      () => ({
        prompt_tokens: 10,
        completion_tokens: 4,
        get details() {
          throw new Error('no');
        },
      }),
    ],
    [
      'a throwing toJSON',
      () => ({
        prompt_tokens: 10,
        completion_tokens: 4,
        x: {
          toJSON: () => {
            throw new Error('no');
          },
        },
      }),
    ],
  ])('keeps only the token counts of a usage JSON cannot hold (%s), saying why in usageError', (_, usage) => {
    const line = written(withUsage(usage()));
    expect(line.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 4 });
    expect(line.usageError).toMatch(
      /^the usage was not written whole: it could not be written as JSON \(.+\); only its token counts are kept$/,
    );
    expect(line).toMatchObject({ costNanoUsd: 210_000, model: 'primary-flash', settlement: 'exact' });
  });

  it('writes a BigInt count as its number, clamped past the bound', () => {
    const line = written(withUsage({ prompt_tokens: 10n ** 20n, completion_tokens: 4n }));
    expect(line.usage).toEqual({ prompt_tokens: 1e12, completion_tokens: 4 });
    expect(line.clamped).toEqual({ 'usage.prompt_tokens': '100000000000000000000n' });
    expect(line).not.toHaveProperty('usageError');
  });

  it('keeps only the token counts of a usage too large for a line, and leaves out an annotation first', () => {
    const big = withUsage({
      prompt_tokens: 10,
      completion_tokens: 4,
      blob: 'x'.repeat(JOURNAL_LIMITS.maxLineBytes),
    });
    const line = written(big);
    expect(line.usage).toEqual({ prompt_tokens: 10, completion_tokens: 4 });
    expect(line.usageError).toMatch(/over the reader’s line cap/);
    const annotated = written(PRIMARY_JUDGE_CALL, {
      json: JSON.stringify({ note: 'y'.repeat(JOURNAL_LIMITS.maxLineBytes) }),
    });
    expect(annotated.extraError).toMatch(/left out: the line would be over the reader’s line cap/);
    expect(annotated.usage).toEqual(PRIMARY_JUDGE_CALL.usage);
  });

  it('writes the format’s own fields alone when the record cannot be written otherwise', () => {
    const huge = { ...PRIMARY_JUDGE_CALL, responseId: 'r'.repeat(2 * JOURNAL_LIMITS.maxLineBytes) };
    const line = written(huge);
    expect(line.recordError).toMatch(/over the reader’s line cap/);
    expect(line).not.toHaveProperty('responseId');
    expect(line).toMatchObject({
      model: 'primary-flash',
      costNanoUsd: 210_000,
      attempts: 2,
      settlement: 'exact',
    });
    const priced = written({
      ...huge,
      priceVersion: '0.1.0',
      priceCheckedAt: '2026-11-22',
      tariff: { entry: 'peak-2026', band: 'peak' },
      providerCostUsd: 0.00021,
    });
    expect(priced.recordError).toMatch(/over the reader’s line cap/);
    // What re-deriving the cost needs is kept.
    expect(priced).toMatchObject({
      priceVersion: '0.1.0',
      priceCheckedAt: '2026-11-22',
      tariff: { entry: 'peak-2026', band: 'peak' },
      providerCostUsd: 0.00021,
    });
    const unwritable = written({ ...PRIMARY_JUDGE_CALL, route: 5n });
    expect(unwritable.recordError).toMatch(/^the record could not be written as JSON \(TypeError: /);
    expect(unwritable).toMatchObject({ model: 'primary-flash', costNanoUsd: 210_000, role: 'judge' });
  });

  it('cuts names and moves times into the range the reader takes, and bounds figures and the error', () => {
    const line = written({
      ...REJECTED_CALL,
      model: 'm'.repeat(300),
      role: '',
      at: '1970-01-01T00:00:00.000Z',
      durationMs: -3,
      attempts: 2.5,
      costUsd: 2e6,
      costNanoUsd: 2e15,
      error: { kind: 7, status: 1000, degradation: 'yes' },
    });
    expect(line).toMatchObject({
      model: 'm'.repeat(256),
      role: '',
      at: '2000-01-01T00:00:00.000Z',
      durationMs: 0,
      attempts: 3,
      costUsd: 1e6,
      costNanoUsd: 1e15,
      error: { kind: 'unknown', status: null, degradation: false },
      outcome: 'unknown',
    });
    expect(Object.keys(line.clamped as object).sort()).toEqual(
      [
        'at',
        'attempts',
        'costNanoUsd',
        'costUsd',
        'durationMs',
        'error.degradation',
        'error.kind',
        'error.status',
        'model',
      ].sort(),
    );
    expect((line.clamped as Record<string, string>).model).toMatch(/\(300 characters\)$/);
  });

  it('writes a settlement derived from the record when it has none, and notes one it cannot take', () => {
    const { settlement: _, ...without } = REJECTED_CALL;
    expect(written(without)).toMatchObject({ settlement: 'none' });
    expect(written({ ...PRIMARY_JUDGE_CALL, priceSource: 'estimate', settlement: undefined })).toMatchObject({
      settlement: 'estimate',
    });
    const odd = written({ ...PRIMARY_JUDGE_CALL, settlement: 'maybe' });
    expect(odd).toMatchObject({ settlement: 'exact', clamped: { settlement: '"maybe"' } });
  });
});
