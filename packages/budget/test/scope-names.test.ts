// Scope names are checked when a budget is made, the same for every store (issue 40 §12): a name a
// store cannot key as itself is a configuration error (a TypeError naming the option), never a
// refusal at each call. Names up to the limits, in the widest characters, work on every store.
import { describe, expect, it } from 'vitest';
import { type BudgetOptions, createBudget } from '../src/budget.js';
import { PostgresBudgetStore } from '../src/postgres-store.js';
import { RedisBudgetStore } from '../src/redis-store.js';
import { MAX_SCOPE_KEY_BYTES } from '../src/scope-chain.js';
import { MAX_SCOPE_NAME_LENGTH } from '../src/scope-limits.js';
import { attemptInfo, callRecord, DOLLAR_PER_OUTPUT_TOKEN } from './support/attempt-info.js';
import { memoryStores, postgresStores, redisStores } from './support/store-factories.js';

function options(name: string, extra: Partial<BudgetOptions> = {}): BudgetOptions {
  return {
    scope: { name, limitUsd: 10 },
    maxPricesOf: () => DOLLAR_PER_OUTPUT_TOKEN,
    onWarning: () => {},
    ...extra,
  };
}

describe('scope names refused when a budget is made', () => {
  it.each([
    [
      '1,000 characters',
      'r'.repeat(1000),
      /scope\.name must be at most 256 characters \(UTF-16 code units\), got 1000/,
    ],
    [
      'one past the limit',
      'x'.repeat(MAX_SCOPE_NAME_LENGTH + 1),
      /scope\.name must be at most 256 characters/,
    ],
    ['a lone high surrogate', 'run-\uD800', /scope\.name must be well-formed Unicode .*"run-\\ud800"/],
    ['a lone low surrogate', '\uDFFF', /scope\.name must be well-formed Unicode/],
    ['swapped halves of a pair', '\uDC00\uD800', /scope\.name must be well-formed Unicode/],
  ])('the root: %s', (_, name, message) => {
    expect(() => createBudget(options(name))).toThrow(TypeError);
    expect(() => createBudget(options(name))).toThrow(message);
  });

  it('a role and a child scope, named by where they are', () => {
    expect(() => createBudget(options('run', { roles: { ['j'.repeat(1000)]: { limitUsd: 1 } } }))).toThrow(
      /^roles\.j{1000}\.name must be at most 256 characters/,
    );
    expect(() => createBudget(options('run', { roles: { '\uDBFF': {} } }))).toThrow(
      /^roles\.\uDBFF\.name must be well-formed Unicode/,
    );
    const budget = createBudget(options('run'));
    expect(() => budget.child({ name: 'c'.repeat(257) })).toThrow(/^scope\.name must be at most 256/);
    expect(() => budget.child({ name: '\uD800' })).toThrow(TypeError);
  });

  it(`a nested path past ${MAX_SCOPE_KEY_BYTES} bytes of UTF-8, however short each name`, () => {
    // {256 × a} is 258 bytes, each /256 × b adds 257: 258 + 257 + 257 + 252 = 1,024.
    const budget = createBudget(options('a'.repeat(256)))
      .child({ name: 'b'.repeat(256) })
      .child({ name: 'b'.repeat(256) });
    expect(() => budget.child({ name: 'c'.repeat(251) })).not.toThrow();
    expect(() => budget.child({ name: 'c'.repeat(252) })).toThrow(
      /^scope\.name: the scope's path ".*" is 1025 bytes in UTF-8, past the 1024 a store keys/,
    );
    // Counted in bytes: 256 three-byte characters at the root leave room for one short child only.
    const wide = createBudget(options('€'.repeat(256)));
    expect(() => wide.child({ name: 'd'.repeat(253) })).not.toThrow();
    expect(() => wide.child({ name: 'd'.repeat(254) })).toThrow(/is 1025 bytes in UTF-8/);
  });
});

describe('RedisBudgetStore prefix', () => {
  it('refuses a lone surrogate (\\uD800 and \\uDBFF would reach Redis as one U+FFFD)', async () => {
    for (const prefix of ['budget:\uD800:', '\uDBFF']) {
      expect(() => new RedisBudgetStore({ url: 'redis://127.0.0.1:1', prefix })).toThrow(
        /^options\.prefix must be well-formed Unicode \(no lone surrogate\)/,
      );
    }
    const paired = new RedisBudgetStore({ url: 'redis://127.0.0.1:1', prefix: 'budget:\u{1F4B8}:' });
    expect(paired.prefix).toBe('budget:\u{1F4B8}:');
    await paired.close();
  });
});

describe('PostgresBudgetStore schema names of PostgreSQL itself', () => {
  it.each(['information_schema', 'INFORMATION_SCHEMA', 'pg_catalog', 'pg_temp', 'pg_toast', 'PG_budget'])(
    'refuses %s as a TypeError naming options.schema',
    (schema) => {
      expect(() => new PostgresBudgetStore({ url: 'postgres://u@127.0.0.1/db', schema })).toThrow(
        new TypeError(
          `PostgresBudgetStore options.schema must not be a schema of PostgreSQL itself (pg_… or information_schema), got ${JSON.stringify(schema)}`,
        ),
      );
    },
  );

  it('accepts a name that only contains pg_ or information', () => {
    for (const schema of ['budget_pg_', 'information', 'schema_pg_x']) {
      expect(new PostgresBudgetStore({ url: 'postgres://u@127.0.0.1/db', schema }).schema).toBe(schema);
    }
  });
});

describe.each([memoryStores(), redisStores(), postgresStores()])(
  'names at the limits on $name',
  (factory) => {
    it('keeps the longest names, in three- and four-byte characters, and pairs that differ only in their surrogates, apart', async () => {
      await factory.setUp();
      try {
        const store = factory.create();
        // 256 three-byte characters (770 bytes with its braces), a child of 64 four-byte characters (128
        // code units): 1,027 bytes would be past the key's limit, so the child has 63 (1,023 bytes).
        const root = createBudget(options('€'.repeat(MAX_SCOPE_NAME_LENGTH), { store }));
        const child = root.child({ name: '\u{1F4B8}'.repeat(63), limitUsd: 5 });
        const pairs = ['\uD800\uDC00', '\uDBFF\uDFFF'].map((name) => createBudget(options(name, { store })));
        const handles = [
          await child.beforeAttempt(attemptInfo({ maxTokens: 3 })),
          await pairs[0]?.beforeAttempt(attemptInfo({ maxTokens: 2 })),
          await pairs[1]?.beforeAttempt(attemptInfo({ maxTokens: 1 })),
        ];
        expect((await child.usage()).map((scope) => scope.reservedUsd)).toEqual([3, 3]);
        expect((await pairs[0]?.usage())?.[0]).toMatchObject({ reservedUsd: 2, inFlight: 1 });
        expect((await pairs[1]?.usage())?.[0]).toMatchObject({ reservedUsd: 1, inFlight: 1 });
        for (const [index, handle] of handles.entries()) {
          await handle?.end({ record: callRecord(index + 0.5), error: null, mayHaveBeenBilled: true });
        }
        expect((await child.usage()).map((scope) => scope.spentUsd)).toEqual([0.5, 0.5]);
        expect((await pairs[0]?.usage())?.[0]).toMatchObject({ spentUsd: 1.5, inFlight: 0 });
        expect((await pairs[1]?.usage())?.[0]).toMatchObject({ spentUsd: 2.5, inFlight: 0 });
        for (const budget of [root, ...pairs]) await budget?.close({ timeoutMs: 10_000 });
      } finally {
        await factory.tearDown();
      }
    });
  },
);
