// A second database role that may create objects in `public` (issue 40 §2) plants its own array_agg,
// unnest, cardinality and now() there, and operators (+ on bigint, = on text), each noting who ran it: the
// budget's functions run with their search_path pinned to pg_catalog, so the store's calls, as its own
// user, are unaffected (the limit holds, the counters are right) and none of that code ever runs as the
// budget's user; nor do the tables migrate() makes take it as a default (now() of a caller's session). And migrate() refuses a schema another role owns, may create objects in, or whose
// functions it owns, naming the object and the role.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBudget } from '../src/budget.js';
import { PostgresBudgetStore } from '../src/postgres-store.js';
import type { StoredScope } from '../src/scope-limits.js';
import { attemptInfo } from './support/attempt-info.js';
import { startPostgres, type TestPostgres } from './support/start-postgres.js';

const APP = 'budget_app';
const INTRUDER = 'intruder';
const LIMIT_NANO = 1_000_000; // $0.001
const AMOUNT_NANO = 100_000;
const CALLS = 30;

/** What the intruder plants in public: every function notes who ran it, then lies. */
const PLANTED = `
CREATE TABLE public.intruder_log (who text, what text);
GRANT INSERT ON public.intruder_log TO PUBLIC;
CREATE FUNCTION public.noted(what text) RETURNS void LANGUAGE sql
  AS $$ INSERT INTO public.intruder_log VALUES (current_user, what) $$;
CREATE FUNCTION public.zero_step(state bigint[], value bigint) RETURNS bigint[] LANGUAGE sql
  AS $$ SELECT public.noted('array_agg(bigint)'); SELECT state || 0::bigint $$;
CREATE AGGREGATE public.array_agg(bigint) (SFUNC = public.zero_step, STYPE = bigint[], INITCOND = '{}');
CREATE FUNCTION public.zero_step(state integer[], value integer) RETURNS integer[] LANGUAGE sql
  AS $$ SELECT public.noted('array_agg(integer)'); SELECT state || 0 $$;
CREATE AGGREGATE public.array_agg(integer) (SFUNC = public.zero_step, STYPE = integer[], INITCOND = '{}');
CREATE FUNCTION public.unnest(keys text[]) RETURNS SETOF text LANGUAGE sql
  AS $$ SELECT public.noted('unnest(text[])'); SELECT k FROM pg_catalog.unnest(keys) AS k WHERE false $$;
CREATE FUNCTION public.cardinality(keys text[]) RETURNS integer LANGUAGE sql
  AS $$ SELECT public.noted('cardinality(text[])'); SELECT 1 $$;
CREATE FUNCTION public.plus_nothing(a bigint, b bigint) RETURNS bigint LANGUAGE sql
  AS $$ SELECT public.noted('bigint + bigint'); SELECT a $$;
CREATE OPERATOR public.+ (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = public.plus_nothing);
CREATE FUNCTION public.text_never(a text, b text) RETURNS boolean LANGUAGE sql
  AS $$ SELECT public.noted('text = text'); SELECT false $$;
CREATE OPERATOR public.= (LEFTARG = text, RIGHTARG = text, FUNCTION = public.text_never);
CREATE FUNCTION public.now() RETURNS timestamptz LANGUAGE sql
  AS $$ SELECT public.noted('now()'); SELECT pg_catalog.now() $$;
`;

describe('PostgresBudgetStore beside a role that may create objects in public', () => {
  let postgres: TestPostgres;
  let admin: pg.Client;
  const urlOf = (user: string) =>
    postgres.url.replace(`switchboard:${postgres.password}@`, `${user}:${user}-secret@`);

  beforeAll(async () => {
    postgres = await startPostgres();
    admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    for (const role of [APP, INTRUDER])
      await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD '${role}-secret'`);
    // The budget's user makes its own schemas; the intruder may create objects in public (every user may
    // on PostgreSQL 14 and before; on 15 when granted, as here).
    await admin.query(`GRANT CREATE ON DATABASE postgres TO ${APP}`);
    await admin.query(`GRANT CREATE ON SCHEMA public TO ${INTRUDER}`);
    const intruder = new pg.Client({ connectionString: urlOf(INTRUDER) });
    await intruder.connect();
    await intruder.query(PLANTED);
    await intruder.end();
  });
  afterAll(async () => {
    await admin?.end();
    await postgres?.stop();
  });

  const log = async () => (await admin.query('SELECT who, what FROM public.intruder_log')).rows;

  it.each([
    [
      'a store from a url (search_path "$user", public: the planted functions match exactly)',
      'from_url',
      null,
    ],
    [
      'a caller’s pool whose search_path puts public first (the planted operators too)',
      'from_pool',
      'public,pg_catalog',
    ],
  ])(
    '%s: the limit holds, the counters are right, none of the planted code runs',
    async (_, schema, path) => {
      const pool =
        path === null
          ? null
          : new pg.Pool({ connectionString: urlOf(APP), max: 3, options: `-c search_path=${path}` });
      const store = new PostgresBudgetStore({ ...(pool === null ? { url: urlOf(APP) } : { pool }), schema });
      try {
        // The session really resolves the planted objects first: what an unpinned function would call.
        const probe = new pg.Client({
          connectionString: urlOf(APP),
          ...(path === null ? {} : { options: `-c search_path=${path}` }),
        });
        await probe.connect();
        expect(
          (await probe.query('SELECT cardinality(ARRAY[$1, $2]::text[]) AS n', ['a', 'b'])).rows,
        ).toEqual([{ n: 1 }]);
        await probe.end();
        await admin.query('TRUNCATE public.intruder_log');

        const scopes: StoredScope[] = [
          { key: `{${schema}}`, limitNanoUsd: LIMIT_NANO, maxInFlight: null },
          { key: `{${schema}}/judge`, limitNanoUsd: null, maxInFlight: null },
        ];
        let granted = 0;
        for (let call = 0; call < CALLS; call++) {
          const answer = await store.acquire({
            leaseId: `call-${call}`,
            scopes,
            amountNanoUsd: AMOUNT_NANO,
            ttlMs: 600_000,
          });
          if (answer.granted) granted += 1;
        }
        expect(granted).toBe(LIMIT_NANO / AMOUNT_NANO);
        expect(await store.settle('call-0', scopes, { actualNanoUsd: 40_000, leased: true })).toBe(true);
        expect(await store.renew([{ leaseId: 'call-1', scopes }], 600_000)).toEqual([]);
        const held = {
          spentNanoUsd: 40_000,
          reservedNanoUsd: 900_000,
          inFlight: 9,
          unsettledNanoUsd: 0,
          unsettledCalls: 0,
        };
        expect(await store.counters(scopes)).toEqual([held, held]);
        expect(await log()).toEqual([]);
      } finally {
        await store.close();
        await pool?.end();
      }
    },
  );

  it('through a budget: 30 calls under a $0.001 limit, 10 granted; usage() says what is held', async () => {
    const store = new PostgresBudgetStore({ url: urlOf(APP), schema: 'budgeted' });
    const budget = createBudget({
      store,
      ownsStore: true,
      scope: { name: 'tight', limitUsd: 0.001 },
      // $0.0001 for each call's worst case.
      maxPricesOf: () => ({ cacheHitPerM: 0, inputPerM: 0, outputPerM: 100 }),
      waitForSettlements: false,
      onWarning: () => {},
    });
    await admin.query('TRUNCATE public.intruder_log');
    const outcomes = await Promise.all(
      Array.from({ length: CALLS }, () =>
        Promise.resolve(budget.beforeAttempt(attemptInfo({ maxTokens: 1, messages: [] }))).then(
          () => 'granted',
          (error: { reason?: string }) => error.reason,
        ),
      ),
    );
    expect(outcomes.filter((outcome) => outcome === 'granted')).toHaveLength(10);
    expect(new Set(outcomes.filter((outcome) => outcome !== 'granted'))).toEqual(new Set(['reserved']));
    expect((await budget.usage())[0]).toMatchObject({ spentUsd: 0, reservedUsd: 0.001, inFlight: 10 });
    expect(await log()).toEqual([]);
    await budget.close({ timeoutMs: 0 });
  });

  it('pins every function of the schema, those of an earlier version (other arguments) included', async () => {
    const app = new pg.Client({ connectionString: urlOf(APP) });
    await app.connect();
    try {
      // What versions 1 and 2 left: the same names, fewer arguments, no pinned search_path.
      await app.query('CREATE SCHEMA upgraded');
      for (const signature of [
        'budget_acquire(text[], bigint[], integer[], bigint, text, bigint, bigint)',
        'budget_settle(text, text[], bigint, boolean, boolean, bigint, boolean)',
        'budget_counters(text[], bigint)',
      ]) {
        await app.query(`CREATE FUNCTION upgraded.${signature} RETURNS void LANGUAGE sql AS 'SELECT'`);
      }
      const store = new PostgresBudgetStore({ url: urlOf(APP), schema: 'upgraded' });
      await store.migrate();
      await store.close();
      const { rows } = await app.query(
        `SELECT p.proname || '(' || pg_catalog.pg_get_function_identity_arguments(p.oid) || ')' AS name, p.proconfig AS config
         FROM pg_catalog.pg_proc AS p JOIN pg_catalog.pg_namespace AS n ON n.oid = p.pronamespace
         WHERE n.nspname = 'upgraded' ORDER BY 1`,
      );
      // This version's eleven functions and the three of versions 1 and 2.
      expect(rows).toHaveLength(14);
      // This version's functions also keep generic plans (plan_cache_mode) and index scans (enable_seqscan); those
      // of versions 1 and 2 only the path.
      for (const row of rows) {
        expect(row.config, row.name).toEqual(
          row.config.length === 1
            ? ['search_path=pg_catalog, pg_temp']
            : ['search_path=pg_catalog, pg_temp', 'plan_cache_mode=force_generic_plan', 'enable_seqscan=off'],
        );
      }
      expect(rows.filter((row) => row.config.length === 1)).toHaveLength(3);
    } finally {
      await app.end();
    }
  });

  describe('migrate() refuses a schema that is not the budget user’s alone', () => {
    async function refusalOf(schema: string): Promise<Error & { configuration?: boolean }> {
      const store = new PostgresBudgetStore({ url: urlOf(APP), schema });
      try {
        const error = await store.migrate().then(
          () => null,
          (caught: Error) => caught,
        );
        expect(error).toBeInstanceOf(Error);
        return error as Error;
      } finally {
        await store.close();
      }
    }

    it('owned by the other role', async () => {
      await admin.query(`CREATE SCHEMA theirs AUTHORIZATION ${INTRUDER}`);
      await admin.query(`GRANT USAGE, CREATE ON SCHEMA theirs TO ${APP}`);
      const error = await refusalOf('theirs');
      expect(error.configuration).toBe(true);
      expect(error.message).toMatch(
        /^PostgreSQL at 127\.0\.0\.1:\d+\/postgres: the budget's schema "theirs" is not "budget_app"'s alone: role "intruder" may create objects in schema theirs; role "intruder" owns schema theirs\. /,
      );
      expect(error.message).not.toContain(`${APP}-secret`);
      // Nothing was made in it.
      expect(
        (
          await admin.query(
            `SELECT count(*)::integer AS n FROM pg_catalog.pg_tables WHERE schemaname = 'theirs'`,
          )
        ).rows,
      ).toEqual([{ n: 0 }]);
    });

    it('with CREATE granted to the other role, or to PUBLIC, on the budget user’s own schema; and a function the other role planted there', async () => {
      const store = new PostgresBudgetStore({ url: urlOf(APP), schema: 'shared_ledger' });
      await store.migrate();
      await store.close();
      const app = new pg.Client({ connectionString: urlOf(APP) });
      await app.connect();
      try {
        await app.query(`GRANT CREATE ON SCHEMA shared_ledger TO ${INTRUDER}`);
        expect((await refusalOf('shared_ledger')).message).toMatch(
          /: role "intruder" may create objects in schema shared_ledger\. The budget's functions run with the rights of the user that calls them/,
        );
        // Through a budget: refused as a configuration error, not an outage, and no fallback is used.
        const budget = createBudget({
          store: new PostgresBudgetStore({ url: urlOf(APP), schema: 'shared_ledger' }),
          ownsStore: true,
          scope: { name: 'refused', limitUsd: 1 },
          maxPricesOf: () => ({ cacheHitPerM: 0, inputPerM: 0, outputPerM: 1 }),
          fallback: { share: 1 },
          onWarning: () => {},
        });
        await expect(
          Promise.resolve(budget.beforeAttempt(attemptInfo({ maxTokens: 1 }))),
        ).rejects.toMatchObject({
          reason: 'store_misconfigured',
        });
        await budget.close({ timeoutMs: 0 });

        const intruder = new pg.Client({ connectionString: urlOf(INTRUDER) });
        await intruder.connect();
        await intruder.query(
          'CREATE FUNCTION shared_ledger.budget_counters(keys text[]) RETURNS integer LANGUAGE sql AS $$ SELECT 0 $$',
        );
        await intruder.end();
        await app.query(`REVOKE CREATE ON SCHEMA shared_ledger FROM ${INTRUDER}`);
        expect((await refusalOf('shared_ledger')).message).toMatch(
          /: role "intruder" owns function shared_ledger\.budget_counters\(keys text\[\]\)\. /,
        );
        await admin.query('DROP FUNCTION shared_ledger.budget_counters(text[])');
        await app.query('GRANT CREATE ON SCHEMA shared_ledger TO PUBLIC');
        expect((await refusalOf('shared_ledger')).message).toMatch(
          /: every role \(PUBLIC\) may create objects in schema shared_ledger\. /,
        );
        await app.query('REVOKE CREATE ON SCHEMA shared_ledger FROM PUBLIC');
        const again = new PostgresBudgetStore({ url: urlOf(APP), schema: 'shared_ledger' });
        await again.migrate();
        await again.close();
      } finally {
        await app.end();
      }
    });

    it('accepts a schema a superuser made (a DBA) and one owned by a group role the user is a member of', async () => {
      const dba = new PostgresBudgetStore({ url: postgres.url, schema: 'by_dba' });
      await dba.migrate();
      await dba.close();
      await admin.query(`GRANT USAGE ON SCHEMA by_dba TO ${APP}`);
      await admin.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA by_dba TO ${APP}`);
      await admin.query('CREATE ROLE ledger_owners NOLOGIN');
      await admin.query(`GRANT ledger_owners TO ${APP}`);
      await admin.query('CREATE SCHEMA by_group AUTHORIZATION ledger_owners');
      await admin.query('GRANT CREATE, USAGE ON SCHEMA by_group TO ledger_owners');
      for (const schema of ['by_dba', 'by_group']) {
        const store = new PostgresBudgetStore({ url: urlOf(APP), schema });
        const scopes = [{ key: '{ok}', limitNanoUsd: 100, maxInFlight: null }];
        expect(
          await store.acquire({ leaseId: 'ok', scopes, amountNanoUsd: 40, ttlMs: 10_000 }),
        ).toMatchObject({
          granted: true,
        });
        await store.close();
      }
    });
  });
});
