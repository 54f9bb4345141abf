import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkJournalLine } from './check-journal-line.js';
import { reportJournal } from './report-journal.js';

const ENDPOINT = { provider: 'primary', baseUrl: 'https://api.primary.example', thinking: false };

/** A journal line as a CallJournal writes it, with generated figures. */
const validLine = fc
  .record({
    role: fc.constantFrom('detector', 'judge', null, 'triage'),
    model: fc.constantFrom('primary-flash', 'primary-v4-pro', 'house-model'),
    costNano: fc.option(fc.integer({ min: 0, max: 5_000_000_000 }), { nil: null }),
    useNanoField: fc.boolean(),
    prompt: fc.integer({ min: 0, max: 1_000_000 }),
    hit: fc.integer({ min: 0, max: 1_000 }),
    output: fc.integer({ min: 0, max: 100_000 }),
    at: fc.integer({ min: Date.UTC(2001, 0, 1), max: Date.UTC(2098, 0, 1) }),
    attempts: fc.integer({ min: 0, max: 5 }),
    failed: fc.boolean(),
  })
  .map((figures) => ({
    v: 1,
    model: figures.model,
    usage: {
      prompt_tokens: figures.prompt,
      prompt_cache_hit_tokens: figures.hit,
      completion_tokens: figures.output,
    },
    costUsd: figures.costNano === null ? null : figures.costNano / 1e9,
    ...(figures.useNanoField && figures.costNano !== null ? { costNanoUsd: figures.costNano } : {}),
    pricedAs: null,
    at: new Date(figures.at).toISOString(),
    durationMs: 10,
    attempts: figures.attempts,
    role: figures.role,
    error: figures.failed ? { kind: 'server', status: 500, degradation: false } : null,
    endpoint: ENDPOINT,
  }));

/** A value each field must never be counted with: wrong type, negative, not finite, out of range or too long. */
const INVALID: Record<string, fc.Arbitrary<unknown>> = {
  model: fc.oneof(
    fc.integer(),
    fc.constant(''),
    fc.constant(null),
    fc.string({ minLength: 257, maxLength: 300 }),
  ),
  role: fc.oneof(fc.integer(), fc.boolean(), fc.array(fc.string()), fc.dictionary(fc.string(), fc.string())),
  costUsd: fc.oneof(
    fc.double({ max: -1e-9, noNaN: true }),
    fc.string(),
    fc.boolean(),
    fc.constant(1e308),
    fc.constant([]),
  ),
  // noNaN: NaN would be written as null, which a valid line may hold.
  costNanoUsd: fc.oneof(fc.double({ min: 0.1, max: 0.9, noNaN: true }), fc.integer({ max: -1 }), fc.string()),
  at: fc.oneof(
    fc.integer(),
    fc.constant('1970-01-01T00:00:00Z'),
    fc.constant('2026-02-30T00:00:00Z'),
    fc.string({ maxLength: 10 }),
  ),
  attempts: fc.oneof(fc.integer({ max: -1 }), fc.constant(1.5), fc.string()),
  usage: fc.oneof(
    fc.string(),
    fc.integer(),
    fc.constant({ prompt_tokens: -1 }),
    fc.constant({ completion_tokens: 'x' }),
  ),
  endpoint: fc.oneof(
    fc.string(),
    fc.constant({ provider: 'primary', baseUrl: 7 }),
    fc.constant({ provider: 1, baseUrl: '' }),
  ),
  error: fc.oneof(fc.string(), fc.constant({ kind: 5 }), fc.constant({ kind: 'server', degradation: 'yes' })),
};
const FIELDS = Object.keys(INVALID);

/** A line that must be skipped: an invalid field, a JSON value that is not an object, or text that is not JSON. */
const junkLine = fc.oneof(
  fc
    .tuple(validLine, fc.constantFrom(...FIELDS))
    .chain(([line, field]) =>
      (INVALID[field] as fc.Arbitrary<unknown>).map((value) => JSON.stringify({ ...line, [field]: value })),
    ),
  fc
    .oneof(fc.integer(), fc.string(), fc.array(fc.jsonValue()), fc.constant(null))
    .map((value) => JSON.stringify(value)),
  fc.string({ minLength: 1 }).map((text) => `#${text.replaceAll('\n', ' ')}`),
);

function report(text: string | Uint8Array) {
  return reportJournal(Readable.from([typeof text === 'string' ? Buffer.from(text) : Buffer.from(text)]), {
    onIssue: () => {},
  });
}

describe('the journal reader under arbitrary input', () => {
  it('never throws on arbitrary bytes, and counts nothing it did not check', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 2_000 }), async (bytes) => {
        const figures = await report(bytes);
        const lines = Buffer.from(bytes)
          .toString('utf8')
          .split('\n')
          .filter((line) => line.trim() !== '');
        expect(figures.totals.calls + figures.skipped.count).toBeLessThanOrEqual(lines.length);
        const valid = lines.filter((line) => {
          try {
            return typeof checkJournalLine(JSON.parse(line)) !== 'string';
          } catch {
            return false;
          }
        });
        expect(figures.totals.calls).toBeLessThanOrEqual(valid.length);
      }),
      { numRuns: 300 },
    );
  });

  it('gives, for valid lines mixed with invalid ones, the totals of the valid lines alone', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            validLine.map((line) => ({ valid: true, text: JSON.stringify(line) })),
            junkLine.map((text) => ({ valid: false, text })),
          ),
          {
            maxLength: 40,
          },
        ),
        async (lines) => {
          const mixed = await report(lines.map((line) => `${line.text}\n`).join(''));
          const alone = await report(
            lines
              .filter((line) => line.valid)
              .map((line) => `${line.text}\n`)
              .join(''),
          );
          expect(mixed.totals).toEqual(alone.totals);
          expect(mixed.byRole).toEqual(alone.byRole);
          expect(mixed.skipped.count).toBe(lines.filter((line) => !line.valid).length);
          const nano = lines
            .filter((line) => line.valid)
            .map((line) => JSON.parse(line.text))
            .reduce(
              (sum, line) =>
                sum + (line.costNanoUsd ?? (line.costUsd === null ? 0 : Math.round(line.costUsd * 1e9))),
              0,
            );
          expect(mixed.totals.costNanoUsd).toBe(nano);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('counts a line with any JSON value in a field only when the value has the field’s type and bounds', async () => {
    await fc.assert(
      fc.asyncProperty(validLine, fc.constantFrom(...FIELDS), fc.jsonValue(), async (line, field, value) => {
        const figures = await report(`${JSON.stringify({ ...line, [field]: value })}\n`);
        expect(figures.totals.calls + figures.skipped.count).toBe(1);
        if (figures.totals.calls === 0) return;
        const counted = value as never;
        if (field === 'role') expect(counted === null || typeof counted === 'string').toBe(true);
        if (field === 'costUsd' && counted !== null)
          expect(typeof counted === 'number' && (counted as number) >= 0 && (counted as number) <= 1e6).toBe(
            true,
          );
        if (field === 'attempts')
          expect(Number.isSafeInteger(counted) && (counted as number) >= 0).toBe(true);
        if (field === 'model') expect(typeof counted === 'string' && (counted as string) !== '').toBe(true);
        expect(Number.isSafeInteger(figures.totals.costNanoUsd)).toBe(true);
        expect(figures.totals.costNanoUsd).toBeGreaterThanOrEqual(0);
      }),
      { numRuns: 1_000 },
    );
  });
});

describe('the journal reader on objects that cannot be converted to text', () => {
  it.each(FIELDS)('skips and names a line whose %s is {"toString": []}', async (field) => {
    const issues: string[] = [];
    const line = JSON.stringify({
      v: 1,
      model: 'primary-flash',
      at: '2026-11-23T08:00:00Z',
      [field]: { toString: [] },
    });
    const figures = await reportJournal(Readable.from([Buffer.from(`${line}\n`)]), {
      onIssue: (issue) => issues.push(issue.message),
    });
    expect(figures.totals.calls + figures.skipped.count).toBe(1);
    if (figures.skipped.count === 1) expect(issues[0]).toMatch(/^journal:1: .*, skipped$/);
  });
});
