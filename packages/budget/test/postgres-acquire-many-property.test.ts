// budget_acquire_many (functions version 10) answers and writes exactly what budget_acquire run for each lease in
// order, in one transaction, does: the same grants and refusals (reason, scope), the same counters, the same rows
// left in every table. Random chains, limits, slots, earlier leases held and settled, lease ids asked again (an
// earlier lease's, or one given twice in the batch). Two schemas on one server, one per way; seeded:
// ACQUIRE_MANY_SEED=<n> replays a run (fast-check prints the seed of a failing one).
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statementsOf } from '../src/postgres-sql.js';
import { PostgresBudgetStore } from '../src/postgres-store.js';
import { startPostgres, type TestPostgres } from './support/start-postgres.js';

const SEED = process.env.ACQUIRE_MANY_SEED === undefined ? undefined : Number(process.env.ACQUIRE_MANY_SEED);
const RUNS = Number(process.env.ACQUIRE_MANY_RUNS ?? 60);
const RETENTION_MS = 3_600_000;
const TTL_MS = 600_000;
const TIMEOUT_MS = 30_000;

const amount = fc.integer({ min: 1, max: 400 });
const plan = fc.record({
  depth: fc.integer({ min: 1, max: 3 }),
  limits: fc.array(fc.option(fc.integer({ min: 0, max: 2_000 }), { nil: null }), {
    minLength: 3,
    maxLength: 3,
  }),
  slots: fc.array(fc.option(fc.integer({ min: 0, max: 6 }), { nil: null }), { minLength: 3, maxLength: 3 }),
  // Earlier leases: acquired one at a time, then maybe settled (at `actual`, maybe as unsettled).
  earlier: fc.array(
    fc.record({
      amount,
      settle: fc.option(fc.record({ actual: fc.integer({ min: 0, max: 500 }), unsettled: fc.boolean() }), {
        nil: null,
      }),
    }),
    { maxLength: 6 },
  ),
  // The batch: new leases, an earlier lease's id, or the id of one before it in the batch.
  asked: fc.array(
    fc.oneof(
      { weight: 6, arbitrary: fc.record({ kind: fc.constant('new' as const), amount }) },
      {
        weight: 1,
        arbitrary: fc.record({ kind: fc.constant('earlier' as const), index: fc.nat(), amount }),
      },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('again' as const), index: fc.nat(), amount }) },
    ),
    { minLength: 1, maxLength: 8 },
  ),
});

describe('budget_acquire_many: what budget_acquire for each lease in order does, in one statement', () => {
  let postgres: TestPostgres;
  let client: pg.Client;
  beforeAll(async () => {
    postgres = await startPostgres();
    client = new pg.Client({ connectionString: postgres.url });
    await client.connect();
    for (const schema of ['many_batched', 'many_one_by_one']) {
      const pool = new pg.Pool({ connectionString: postgres.url, max: 1 });
      await new PostgresBudgetStore({ pool, schema }).migrate();
      await pool.end();
    }
  });
  afterAll(async () => {
    await client?.end();
    await postgres?.stop();
  });

  /** Every row of the schema's tables that a chain's acquisitions touch, without timestamps. */
  async function tables(schema: string, keys: readonly string[]) {
    const s = `"${schema}"`;
    const rows = async (text: string) => (await client.query(text, [keys])).rows;
    return {
      scopes: await rows(
        `SELECT scope_key, spent_nano_usd, reserved_nano_usd, in_flight, unsettled_nano_usd, unsettled_calls
         FROM ${s}.budget_scopes WHERE scope_key = ANY($1) ORDER BY scope_key`,
      ),
      shards: await rows(
        `SELECT scope_key, shard, spent_nano_usd, reserved_nano_usd, in_flight, unsettled_nano_usd, unsettled_calls
         FROM ${s}.budget_scope_shards WHERE scope_key = ANY($1) ORDER BY scope_key, shard`,
      ),
      leases: await rows(
        `SELECT scope_key, lease_id, amount_nano_usd FROM ${s}.budget_leases WHERE scope_key = ANY($1)
         ORDER BY scope_key, lease_id`,
      ),
      records: await rows(
        `SELECT lease_id, state, reserved_nano_usd, actual_nano_usd, unsettled, answer
         FROM ${s}.budget_lease_records WHERE scope_key = ANY($1) ORDER BY lease_id`,
      ),
    };
  }

  it(`agree over ${RUNS} seeded runs`, { timeout: 120_000 }, async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(plan, async ({ depth, limits, slots, earlier, asked }) => {
        run += 1;
        const base = `prop-${run}-${randomUUID().slice(0, 8)}`;
        const keys = ['', '/a', '/a/b'].slice(0, depth).map((suffix) => `${base}${suffix}`);
        const chainLimits = limits.slice(0, depth);
        const chainSlots = slots.slice(0, depth);
        const earlierIds = earlier.map(() => randomUUID());
        const ids: string[] = [];
        for (const [index, one] of asked.entries()) {
          if (one.kind === 'earlier' && earlierIds.length > 0)
            ids.push(earlierIds[one.index % earlierIds.length] as string);
          else if (one.kind === 'again' && index > 0) ids.push(ids[one.index % index] as string);
          else ids.push(randomUUID());
        }
        const amounts = asked.map((one) => one.amount);
        const answers: Record<string, unknown[]> = {};
        for (const schema of ['many_batched', 'many_one_by_one']) {
          const sql = statementsOf(schema);
          for (const [index, one] of earlier.entries()) {
            const id = earlierIds[index] as string;
            await client.query(sql.acquire, [
              keys,
              chainLimits,
              chainSlots,
              one.amount,
              id,
              TTL_MS,
              RETENTION_MS,
              TIMEOUT_MS,
            ]);
            if (one.settle !== null) {
              await client.query(sql.settle, [
                id,
                keys,
                one.settle.actual,
                one.settle.unsettled,
                true,
                RETENTION_MS,
                true,
                TIMEOUT_MS,
              ]);
            }
          }
          if (schema === 'many_batched') {
            answers[schema] = (
              await client.query(sql.acquireMany, [
                keys,
                chainLimits,
                chainSlots,
                amounts,
                ids,
                TTL_MS,
                RETENTION_MS,
                TIMEOUT_MS,
              ])
            ).rows;
          } else {
            const rows: unknown[] = [];
            await client.query('BEGIN');
            for (const [index, id] of ids.entries()) {
              const [row] = (
                await client.query(sql.acquire, [
                  keys,
                  chainLimits,
                  chainSlots,
                  amounts[index],
                  id,
                  TTL_MS,
                  RETENTION_MS,
                  TIMEOUT_MS,
                ])
              ).rows;
              rows.push(row);
            }
            await client.query('COMMIT');
            answers[schema] = rows;
          }
        }
        // A lease id recorded before the batch is answered with the chain's counters as they are (one by one:
        // at its turn; in the batch: after its grants), so those counters are left out. A batch that names a lease
        // twice runs one by one: everything of it is compared.
        const recordedBefore = new Set<string>(new Set(ids).size < ids.length ? [] : earlierIds);
        const comparable = (rows: unknown[] | undefined) =>
          (rows ?? []).map((row, index) => {
            const { granted, reason, scope_index, ...counters } = row as Record<string, unknown>;
            return recordedBefore.has(ids[index] as string)
              ? { granted, reason, scope_index }
              : { granted, reason, scope_index, ...counters };
          });
        const batched = comparable(answers.many_batched);
        const oneByOne = comparable(answers.many_one_by_one);
        expect(batched).toEqual(oneByOne);
        expect(await tables('many_batched', keys)).toEqual(await tables('many_one_by_one', keys));
      }),
      { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) },
    );
  });
});
