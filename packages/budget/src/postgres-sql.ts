// The SQL of PostgresBudgetStore. Amounts are bigint nano-dollars (1e-9 USD);
// PostgreSQL's own clock (`now()`, the transaction's start) is the only clock.
// Every statement names the schema, quoted; `$S` below stands for it. Every function runs with its
// search_path pinned to PostgreSQL's catalog (`SET search_path = pg_catalog, pg_temp`): whatever the
// caller's search_path, and whoever may create objects in `public` or elsewhere on it, `array_agg`,
// `unnest`, `cardinality`, `now()`, `=` and `+` are PostgreSQL's own, and only the budget's own tables
// (named with their schema) are touched; the schema itself is not on the path.

import { acquireManySql } from './postgres-sql-acquire-many.js';
import { acquireSql, FUNCTION_SETTINGS, SHARDS, settleSql, sweepDue, totalsSql } from './postgres-sql-hot.js';
import { settleManySql } from './postgres-sql-many.js';
import { settleMarkedSql } from './postgres-sql-marked.js';
import { PRUNE_BATCH } from './retention.js';
import { PAST_WINDOW_KEEP_MS } from './scope-windows.js';

/**
 * The comment `migrate()` looks for on `budget_settle`: the functions of this version are there. Changed
 * whenever a function's text changes, so a store of a newer version replaces them (`CREATE OR REPLACE`).
 */
export const FUNCTIONS_VERSION = 'switchboard budget functions 10';

/**
 * The tables, created by `migrate()` (idempotent; also run on first use, under an
 * advisory lock so processes starting together do not race). docs/budgets-postgres-schema.md shows
 * this text for schema `switchboard`.
 */
export function schemaSql(schema: string): string {
  const s = quoted(schema);
  return `CREATE SCHEMA IF NOT EXISTS ${s};

-- One row per scope ('{run-42}', '{run-42}/judge'): its counters.
CREATE TABLE IF NOT EXISTS ${s}.budget_scopes (
  scope_key          text        PRIMARY KEY,
  spent_nano_usd     bigint      NOT NULL DEFAULT 0,  -- settled costs + worst cases of unsettled calls
  reserved_nano_usd  bigint      NOT NULL DEFAULT 0,  -- held by live leases
  in_flight          integer     NOT NULL DEFAULT 0,  -- live leases
  unsettled_nano_usd bigint      NOT NULL DEFAULT 0,  -- the part of spent counted at a worst case
  unsettled_calls    integer     NOT NULL DEFAULT 0,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT budget_scopes_held CHECK (reserved_nano_usd >= 0 AND in_flight >= 0)
);

-- Live leases: one row per lease and scope of its chain, swept once expired.
CREATE TABLE IF NOT EXISTS ${s}.budget_leases (
  scope_key       text        NOT NULL,
  lease_id        text        NOT NULL,
  amount_nano_usd bigint      NOT NULL,
  expires_at      timestamptz NOT NULL,
  PRIMARY KEY (scope_key, lease_id)
);
CREATE INDEX IF NOT EXISTS budget_leases_expiry ON ${s}.budget_leases (scope_key, expires_at);

-- Calls counted at their worst case, until a late settlement replaces them or the retention ends.
CREATE TABLE IF NOT EXISTS ${s}.budget_unsettled (
  scope_key       text        NOT NULL,
  lease_id        text        NOT NULL,
  amount_nano_usd bigint      NOT NULL,
  counted_at      timestamptz NOT NULL,
  PRIMARY KEY (scope_key, lease_id)
);
CREATE INDEX IF NOT EXISTS budget_unsettled_age ON ${s}.budget_unsettled (scope_key, counted_at);

-- Every lease by id (what makes each operation idempotent), and how it ended.
CREATE TABLE IF NOT EXISTS ${s}.budget_lease_records (
  lease_id          text        PRIMARY KEY,
  scope_key         text        NOT NULL,             -- the innermost scope of its chain
  state             text        NOT NULL CHECK (state IN ('held', 'ended')),
  reserved_nano_usd bigint,                           -- its worst case, when granted here
  actual_nano_usd   bigint,                           -- what it settled at
  unsettled         boolean,                          -- settled at a worst case
  answer            boolean,                          -- settle()'s answer: it was still held
  created_at        timestamptz NOT NULL DEFAULT now(),
  ended_at          timestamptz,
  forget_after      timestamptz NOT NULL              -- pruned after this
);
CREATE INDEX IF NOT EXISTS budget_lease_records_forget ON ${s}.budget_lease_records (forget_after);

-- The operations, one function call each (one round trip, one commit). Limits are not stored: each call
-- passes its own. Amounts are nano-dollars; durations milliseconds; now() is the transaction's start.
-- timeout_ms: the store's statementTimeoutMs, set as this transaction's lock_timeout, so a row lock held
-- elsewhere ends the wait on the server (55P03) before the client gives up on it: no backend is left
-- waiting behind a client that went away, on a caller's pool (whose sessions the store does not own) too.

-- Where a lease of the scopes has expired or an unsettled entry is past the retention (looked at without a
-- lock): the scopes' rows locked in key order, the expired leases made unsettled spend (their slots freed),
-- old unsettled entries pruned.
CREATE OR REPLACE FUNCTION ${s}.budget_sweep(keys text[], retention_ms bigint) RETURNS void
LANGUAGE plpgsql ${FUNCTION_SETTINGS} AS $$
BEGIN
  IF NOT (${sweepDue(s)}) THEN
    RETURN;
  END IF;
  PERFORM 1 FROM ${s}.budget_scopes WHERE scope_key = ANY(keys) ORDER BY scope_key FOR UPDATE;
  WITH expired AS (
    DELETE FROM ${s}.budget_leases
    WHERE scope_key = ANY(keys) AND expires_at <= now()
    RETURNING scope_key, lease_id, amount_nano_usd
  ), counted AS (
    INSERT INTO ${s}.budget_unsettled (scope_key, lease_id, amount_nano_usd, counted_at)
    SELECT scope_key, lease_id, amount_nano_usd, now() FROM expired
    ON CONFLICT (scope_key, lease_id) DO NOTHING
  ), old AS (
    SELECT scope_key, lease_id FROM ${s}.budget_unsettled
    WHERE scope_key = ANY(keys) AND counted_at < now() - retention_ms * interval '1 millisecond'
    ORDER BY counted_at LIMIT ${PRUNE_BATCH}
  ), pruned AS (
    DELETE FROM ${s}.budget_unsettled AS entry USING old
    WHERE entry.scope_key = old.scope_key AND entry.lease_id = old.lease_id
  )
  UPDATE ${s}.budget_scopes AS scope SET
    reserved_nano_usd = scope.reserved_nano_usd - gone.total,
    spent_nano_usd = scope.spent_nano_usd + gone.total,
    unsettled_nano_usd = scope.unsettled_nano_usd + gone.total,
    unsettled_calls = scope.unsettled_calls + gone.calls,
    in_flight = scope.in_flight - gone.calls,
    updated_at = now()
  FROM (SELECT scope_key, sum(amount_nano_usd) AS total, count(*)::integer AS calls FROM expired GROUP BY scope_key) AS gone
  WHERE scope.scope_key = gone.scope_key;
END
$$;

${acquireSql(s)}
${settleSql(s)}
-- Extends the live leases among the (lease, scope) pairs by ttl_ms; returns the pairs extended. A row locked
-- by another transaction is left out, never waited for: only its lease's settlement or a sweep (of an expired
-- lease) locks it, and either ends the lease. Waiting would take the rows in this statement's order while a
-- settlement takes them in its own: a deadlock, which stalls both for the server's deadlock_timeout.
CREATE OR REPLACE FUNCTION ${s}.budget_renew(lease_ids text[], keys text[], ttl_ms bigint, timeout_ms bigint)
RETURNS TABLE (lease_id text, scope_key text)
LANGUAGE plpgsql ${FUNCTION_SETTINGS} AS $$
DECLARE
  ignored text;
BEGIN
  ignored := set_config('lock_timeout', timeout_ms || 'ms', true);
  RETURN QUERY
  WITH free AS (
    SELECT held.scope_key, held.lease_id FROM ${s}.budget_leases AS held
    JOIN unnest(lease_ids, keys) AS wanted(lease_id, scope_key)
      ON held.lease_id = wanted.lease_id AND held.scope_key = wanted.scope_key
    WHERE held.expires_at > now()
    FOR UPDATE OF held SKIP LOCKED
  )
  UPDATE ${s}.budget_leases AS held SET expires_at = now() + ttl_ms * interval '1 millisecond'
  FROM free WHERE held.scope_key = free.scope_key AND held.lease_id = free.lease_id
  RETURNING held.lease_id, held.scope_key;
END
$$;

-- Calendar windows (version 5): each window of a windowed scope is a scope row of its own, keyed
-- '{svc}/acme{2026-11-28T00:00:00.000Z}'; this table lists them per scope, so a past window is found,
-- listed and, once past its keep, pruned (with its rows) by the next acquisition in the scope.
CREATE TABLE IF NOT EXISTS ${s}.budget_windows (
  scope_key  text        NOT NULL,                    -- the scope, without its window
  window_key text        NOT NULL,                    -- the window's scope row
  start_at   timestamptz NOT NULL,
  end_at     timestamptz NOT NULL,
  PRIMARY KEY (scope_key, window_key)
);
CREATE INDEX IF NOT EXISTS budget_windows_end ON ${s}.budget_windows (scope_key, end_at);

-- Thresholds (version 5): per scope row (a window's own), how many of its thresholds were reported
-- reached, so each is reported once, to whichever process raised the mark.
CREATE TABLE IF NOT EXISTS ${s}.budget_thresholds (
  scope_key text    PRIMARY KEY,
  mark      integer NOT NULL DEFAULT 0
);

-- Settlements (version 6): each adds its changes to one of ${SHARDS} rows per scope (shard: the hash of its lease
-- id), never to the scope's own row, which acquisitions lock; a scope's counters are its row plus its shards.
CREATE TABLE IF NOT EXISTS ${s}.budget_scope_shards (
  scope_key          text     NOT NULL,
  shard              smallint NOT NULL,
  spent_nano_usd     bigint   NOT NULL DEFAULT 0,
  reserved_nano_usd  bigint   NOT NULL DEFAULT 0,               -- negative: the reservations settled
  in_flight          integer  NOT NULL DEFAULT 0,               -- negative: the leases settled
  unsettled_nano_usd bigint   NOT NULL DEFAULT 0,
  unsettled_calls    integer  NOT NULL DEFAULT 0,
  PRIMARY KEY (scope_key, shard)
);

${totalsSql(s)}
-- The counters of a chain, in its order (after a sweep where one is due, the chain's rows locked in key order).
CREATE OR REPLACE FUNCTION ${s}.budget_counters(keys text[], retention_ms bigint, timeout_ms bigint,
  OUT spent bigint[], OUT reserved bigint[], OUT in_flight integer[], OUT unsettled bigint[], OUT unsettled_calls integer[])
LANGUAGE plpgsql ${FUNCTION_SETTINGS} AS $$
DECLARE
  ignored text;
BEGIN
  ignored := set_config('lock_timeout', timeout_ms || 'ms', true);
  PERFORM ${s}.budget_sweep(keys, retention_ms);
  SELECT t.spent, t.reserved, t.in_flight, t.unsettled, t.unsettled_calls
  INTO spent, reserved, in_flight, unsettled, unsettled_calls FROM ${s}.budget_totals(keys) AS t;
END
$$;

-- Per scope (asked[i]), the number of its n levels (levels[(i-1)*n+1 .. i*n], ascending nano-dollars)
-- its spend reaches; its mark raised to that. The chain's threshold rows (made when missing) are locked in key
-- order first, so two processes never both raise one mark, and the spend is read after, with no other lock:
-- the spend a sweep would leave (each expired lease at its worst case), read without one. A sweep here would
-- lock the scope rows, then the expired lease rows, while holding the threshold rows and, in
-- budget_settle_marked, the settled lease's rows: against an acquisition's sweep (scope rows, then lease
-- rows) and a settlement waiting for the threshold rows, a cycle (version 8 deadlocked so once leases expired,
-- after a stall). retention_ms is not used (pruning is left to sweeps). Returns per scope the mark before and
-- after, and the spend compared.
CREATE OR REPLACE FUNCTION ${s}.budget_mark_thresholds(keys text[], asked boolean[], levels bigint[], n integer,
  retention_ms bigint, timeout_ms bigint, OUT marks_from integer[], OUT marks_to integer[], OUT spent bigint[])
LANGUAGE plpgsql ${FUNCTION_SETTINGS} AS $$
DECLARE
  ignored text;
  before integer;
  reached integer;
BEGIN
  ignored := set_config('lock_timeout', timeout_ms || 'ms', true);
  INSERT INTO ${s}.budget_thresholds (scope_key, mark)
  SELECT k, 0 FROM unnest(keys) AS k
  WHERE NOT EXISTS (SELECT 1 FROM ${s}.budget_thresholds AS t WHERE t.scope_key = k)
  ORDER BY k ON CONFLICT (scope_key) DO NOTHING;
  PERFORM 1 FROM ${s}.budget_thresholds WHERE scope_key = ANY(keys) ORDER BY scope_key FOR UPDATE;
  SELECT t.spent INTO spent FROM ${s}.budget_totals(keys) AS t;
  FOR i IN 1..cardinality(keys) LOOP
    spent[i] := spent[i] + coalesce((SELECT sum(l.amount_nano_usd) FROM ${s}.budget_leases AS l
      WHERE l.scope_key = keys[i] AND l.expires_at <= now()), 0);
  END LOOP;
  marks_from := '{}';
  marks_to := '{}';
  FOR i IN 1..cardinality(keys) LOOP
    SELECT t.mark INTO before FROM ${s}.budget_thresholds AS t WHERE t.scope_key = keys[i];
    before := coalesce(before, 0);
    reached := 0;
    IF asked[i] THEN
      FOR k IN 1..n LOOP
        IF levels[(i - 1) * n + k] <= spent[i] THEN reached := k; END IF;
      END LOOP;
    END IF;
    IF reached > before THEN
      UPDATE ${s}.budget_thresholds AS t SET mark = greatest(t.mark, reached) WHERE t.scope_key = keys[i];
    END IF;
    marks_from := marks_from || before;
    marks_to := marks_to || greatest(before, reached);
  END LOOP;
END
$$;

${settleMarkedSql(s)}
${acquireManySql(s)}
${settleManySql(s)}
-- budget_acquire for a chain with windows (starts and ends in ms since the epoch, -1 for a scope without
-- one): 'window' and nothing written when now() is not within a scope's window, else budget_acquire's
-- answer; now_ms is the server's clock either way. Before it (no scope row locked yet) its windows are listed,
-- and up to ${PRUNE_BATCH} past windows of its scopes whose keep (${PAST_WINDOW_KEEP_MS} ms after their end) is
-- over, that hold no lease and that no other acquisition is pruning are pruned.
CREATE OR REPLACE FUNCTION ${s}.budget_acquire_windowed(keys text[], limits bigint[], max_in_flight integer[],
  amount bigint, lease text, ttl_ms bigint, retention_ms bigint, timeout_ms bigint,
  base_keys text[], window_starts bigint[], window_ends bigint[],
  OUT granted boolean, OUT reason text, OUT scope_index integer,
  OUT spent bigint[], OUT reserved bigint[], OUT in_flight integer[], OUT unsettled bigint[], OUT unsettled_calls integer[],
  OUT now_ms bigint)
LANGUAGE plpgsql ${FUNCTION_SETTINGS} AS $$
DECLARE
  gone text[];
BEGIN
  now_ms := floor(extract(epoch FROM now()) * 1000)::bigint;
  FOR i IN 1..cardinality(keys) LOOP
    IF window_ends[i] >= 0 AND (now_ms < window_starts[i] OR now_ms >= window_ends[i]) THEN
      granted := false; reason := 'window'; scope_index := i - 1;
      RETURN;
    END IF;
  END LOOP;
  INSERT INTO ${s}.budget_windows (scope_key, window_key, start_at, end_at)
  SELECT w.base, w.key, to_timestamp(w.starts / 1000.0), to_timestamp(w.ends / 1000.0)
  FROM unnest(base_keys, keys, window_starts, window_ends) AS w(base, key, starts, ends)
  WHERE w.ends >= 0
  ON CONFLICT (scope_key, window_key) DO NOTHING;
  gone := ARRAY(
    SELECT w.window_key FROM ${s}.budget_windows AS w
    WHERE w.scope_key = ANY(base_keys) AND w.end_at < now() - interval '${PAST_WINDOW_KEEP_MS} milliseconds'
      AND NOT EXISTS (SELECT 1 FROM ${s}.budget_leases AS l WHERE l.scope_key = w.window_key)
    ORDER BY w.window_key LIMIT ${PRUNE_BATCH} FOR UPDATE SKIP LOCKED);
  IF cardinality(gone) > 0 THEN
    DELETE FROM ${s}.budget_unsettled WHERE scope_key = ANY(gone);
    DELETE FROM ${s}.budget_scopes WHERE scope_key = ANY(gone);
    DELETE FROM ${s}.budget_scope_shards WHERE scope_key = ANY(gone);
    DELETE FROM ${s}.budget_thresholds WHERE scope_key = ANY(gone);
    DELETE FROM ${s}.budget_windows WHERE window_key = ANY(gone);
  END IF;
  SELECT a.granted, a.reason, a.scope_index, a.spent, a.reserved, a.in_flight, a.unsettled, a.unsettled_calls
  INTO granted, reason, scope_index, spent, reserved, in_flight, unsettled, unsettled_calls
  FROM ${s}.budget_acquire(keys, limits, max_in_flight, amount, lease, ttl_ms, retention_ms, timeout_ms) AS a;
END
$$;

-- The functions of versions 1 and 2 (before statementTimeoutMs), kept for processes not yet upgraded:
-- pinned as well.
DO $$
BEGIN
  IF to_regprocedure('${s}.budget_acquire(text[], bigint[], integer[], bigint, text, bigint, bigint)') IS NOT NULL THEN
    ALTER FUNCTION ${s}.budget_acquire(text[], bigint[], integer[], bigint, text, bigint, bigint) SET search_path = pg_catalog, pg_temp;
  END IF;
  IF to_regprocedure('${s}.budget_settle(text, text[], bigint, boolean, boolean, bigint, boolean)') IS NOT NULL THEN
    ALTER FUNCTION ${s}.budget_settle(text, text[], bigint, boolean, boolean, bigint, boolean) SET search_path = pg_catalog, pg_temp;
  END IF;
  IF to_regprocedure('${s}.budget_counters(text[], bigint)') IS NOT NULL THEN
    ALTER FUNCTION ${s}.budget_counters(text[], bigint) SET search_path = pg_catalog, pg_temp;
  END IF;
END
$$;

COMMENT ON FUNCTION ${s}.budget_settle(text, text[], bigint, boolean, boolean, bigint, boolean, bigint) IS '${FUNCTIONS_VERSION}';
`;
}

/** `"name"`: an identifier checked by the store's constructor (letters, digits, `_`). */
function quoted(identifier: string): string {
  return `"${identifier}"`;
}

/** The statements a store runs, for its schema: one function call per operation (autocommit). */
export interface Statements {
  /**
   * $1 keys, $2 limits, $3 max in flight, $4 amount, $5 lease id, $6 ttl ms, $7 retention ms, $8 timeout ms:
   * granted, or the reason and index of the refusing scope; the chain's counters (arrays, in its order).
   */
  readonly acquire: string;
  /**
   * acquire's $1-$3, then $4 amounts, $5 lease ids (one each), $6 ttl ms, $7 retention ms, $8 timeout ms: a row
   * as acquire's per lease, in their order.
   */
  readonly acquireMany: string;
  /**
   * $1 lease ids, $2 keys, $3 actuals, $4 unsettled, $5 leased (one each), $6 retention ms, $7 durable, $8 timeout
   * ms: `held` per lease, in their order.
   */
  readonly settleMany: string;
  /**
   * $1 lease id, $2 keys, $3 actual, $4 unsettled, $5 leased, $6 retention ms, $7 durable, $8 timeout ms:
   * whether the lease was still held (`held`).
   */
  readonly settle: string;
  /** acquire's $1-$8, then $9 the scopes' keys without their window, $10 window starts, $11 window ends (ms, -1: none): also `now_ms`, and reason `window`. */
  readonly acquireWindowed: string;
  /** $1 keys, $2 asked per scope, $3 levels (n per scope, flattened), $4 n, $5 retention ms, $6 timeout ms: marks before and after, spend. */
  readonly markThresholds: string;
  /**
   * settle's $1-$8, then markThresholds' $9 asked per scope, $10 levels, $11 n: `held`, and the marks
   * before and after, and the spend (this settlement's included).
   */
  readonly settleMarked: string;
  /** $1 keys, $2 retention ms, $3 timeout ms: the chain's counters (arrays, in its order), after a sweep where one is due. */
  readonly counters: string;
  /** $1 lease ids, $2 scope keys (pairs), $3 ttl ms, $4 timeout ms: extends the live ones; returns those extended. */
  readonly renew: string;
}

/**
 * The statements run on the caller's session, whose search_path the store does not choose: the function
 * named with its schema, every type with `pg_catalog`, so nothing resolves to another schema's object.
 */
export function statementsOf(schema: string): Statements {
  const s = quoted(schema);
  const text = 'pg_catalog.text';
  const bigint = 'pg_catalog.int8';
  const boolean = 'pg_catalog.bool';
  return {
    acquire: `SELECT * FROM ${s}.budget_acquire($1::${text}[], $2::${bigint}[], $3::pg_catalog.int4[], $4::${bigint}, $5::${text}, $6::${bigint}, $7::${bigint}, $8::${bigint})`,
    acquireMany: `SELECT * FROM ${s}.budget_acquire_many($1::${text}[], $2::${bigint}[], $3::pg_catalog.int4[], $4::${bigint}[], $5::${text}[], $6::${bigint}, $7::${bigint}, $8::${bigint})`,
    settleMany: `SELECT held FROM ${s}.budget_settle_many($1::${text}[], $2::${text}[], $3::${bigint}[], $4::${boolean}[], $5::${boolean}[], $6::${bigint}, $7::${boolean}, $8::${bigint})`,
    acquireWindowed: `SELECT * FROM ${s}.budget_acquire_windowed($1::${text}[], $2::${bigint}[], $3::pg_catalog.int4[], $4::${bigint}, $5::${text}, $6::${bigint}, $7::${bigint}, $8::${bigint}, $9::${text}[], $10::${bigint}[], $11::${bigint}[])`,
    markThresholds: `SELECT * FROM ${s}.budget_mark_thresholds($1::${text}[], $2::${boolean}[], $3::${bigint}[], $4::pg_catalog.int4, $5::${bigint}, $6::${bigint})`,
    settle: `SELECT ${s}.budget_settle($1::${text}, $2::${text}[], $3::${bigint}, $4::${boolean}, $5::${boolean}, $6::${bigint}, $7::${boolean}, $8::${bigint}) AS held`,
    settleMarked: `SELECT * FROM ${s}.budget_settle_marked($1::${text}, $2::${text}[], $3::${bigint}, $4::${boolean}, $5::${boolean}, $6::${bigint}, $7::${boolean}, $8::${bigint}, $9::${boolean}[], $10::${bigint}[], $11::pg_catalog.int4)`,
    counters: `SELECT * FROM ${s}.budget_counters($1::${text}[], $2::${bigint}, $3::${bigint})`,
    renew: `SELECT * FROM ${s}.budget_renew($1::${text}[], $2::${text}[], $3::${bigint}, $4::${bigint})`,
  };
}
