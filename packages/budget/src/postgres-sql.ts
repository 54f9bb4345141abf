// The SQL of PostgresBudgetStore. Amounts are bigint nano-dollars (1e-9 USD);
// PostgreSQL's own clock (`now()`, the transaction's start) is the only clock.
// Every statement names the schema, quoted; `$S` below stands for it.
import { PRUNE_BATCH } from './retention.js';

/** How long a lease's record lives while held (renewals do not extend it): a late settlement is still recognised. */
const HELD_RECORD_MS = 24 * 3_600_000;

/**
 * The tables, created by `migrate()` (idempotent; also run on first use, under an
 * advisory lock so processes starting together do not race). docs/budgets.md shows
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
`;
}

/** `"name"`: an identifier checked by the store's constructor (letters, digits, `_`). */
function quoted(identifier: string): string {
  return `"${identifier}"`;
}

/** The statements a store runs, for its schema. */
export interface Statements {
  /**
   * $1 scope keys, $2 retention ms, $3 lease id: makes missing rows and locks every row, in key order;
   * returns each row's counters, whether a sweep is due there, and the lease's record state.
   */
  readonly lock: string;
  /** $1 scope keys, $2 retention ms: expired leases become unsettled spend; old unsettled entries pruned. */
  readonly sweep: string;
  /** $1 scope keys, $2 lease id: counters per scope, and the lease's record state. */
  readonly read: string;
  /**
   * $1 keys, $2 limits, $3 max in flight, $4 amount, $5 lease id, $6 ttl ms, $7 innermost key:
   * the conditional reservation in every scope, its lease rows and record, when every scope fits.
   */
  readonly grant: string;
  /** $1 lease id: the record, locked. */
  readonly record: string;
  /** $1 lease id, $2 scope keys: takes the lease's rows (and whether each had expired) and unsettled entries. */
  readonly take: string;
  /**
   * $1 keys (sorted), $2 spent deltas, $3 reserved deltas, $4 in-flight deltas, $5 unsettled deltas,
   * $6 unsettled-call deltas, $7 keys of new unsettled entries, $8 lease id, $9 amount,
   * $10 innermost key, $11 answer, $12 unsettled (bool), $13 retention ms: the deltas applied with the rows
   * locked in key order, the entries and the lease's record written, old records pruned.
   */
  readonly end: string;
  /** $1 lease ids, $2 scope keys (pairs), $3 ttl ms: extends the live ones; returns those extended. */
  readonly renew: string;
}

export function statementsOf(schema: string): Statements {
  const s = quoted(schema);
  return {
    lock: `INSERT INTO ${s}.budget_scopes AS scope (scope_key)
SELECT key FROM unnest($1::text[]) AS key ORDER BY key
ON CONFLICT (scope_key) DO UPDATE SET updated_at = now()
RETURNING scope.scope_key, scope.spent_nano_usd AS spent, scope.reserved_nano_usd AS reserved,
  scope.in_flight, scope.unsettled_nano_usd AS unsettled, scope.unsettled_calls,
  EXISTS (SELECT 1 FROM ${s}.budget_leases AS lease
    WHERE lease.scope_key = scope.scope_key AND lease.expires_at <= now())
  OR EXISTS (SELECT 1 FROM ${s}.budget_unsettled AS entry
    WHERE entry.scope_key = scope.scope_key AND entry.counted_at < now() - $2::bigint * interval '1 millisecond') AS due,
  (SELECT state FROM ${s}.budget_lease_records WHERE lease_id = $3) AS record`,
    sweep: `WITH expired AS (
  DELETE FROM ${s}.budget_leases
  WHERE scope_key = ANY($1::text[]) AND expires_at <= now()
  RETURNING scope_key, lease_id, amount_nano_usd
), counted AS (
  INSERT INTO ${s}.budget_unsettled (scope_key, lease_id, amount_nano_usd, counted_at)
  SELECT scope_key, lease_id, amount_nano_usd, now() FROM expired
  ON CONFLICT (scope_key, lease_id) DO NOTHING
), old AS (
  SELECT scope_key, lease_id FROM ${s}.budget_unsettled
  WHERE scope_key = ANY($1::text[]) AND counted_at < now() - $2::bigint * interval '1 millisecond'
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
WHERE scope.scope_key = gone.scope_key`,
    read: `SELECT chain.key AS scope_key,
  coalesce(scope.spent_nano_usd, 0) AS spent, coalesce(scope.reserved_nano_usd, 0) AS reserved,
  coalesce(scope.in_flight, 0) AS in_flight, coalesce(scope.unsettled_nano_usd, 0) AS unsettled,
  coalesce(scope.unsettled_calls, 0) AS unsettled_calls,
  (SELECT state FROM ${s}.budget_lease_records WHERE lease_id = $2) AS record
FROM unnest($1::text[]) WITH ORDINALITY AS chain(key, position)
LEFT JOIN ${s}.budget_scopes AS scope ON scope.scope_key = chain.key
ORDER BY chain.position`,
    grant: `WITH chain AS (
  SELECT * FROM unnest($1::text[], $2::bigint[], $3::integer[]) AS chain(key, limit_nano_usd, max_in_flight)
), reserved AS (
  UPDATE ${s}.budget_scopes AS scope SET
    reserved_nano_usd = scope.reserved_nano_usd + $4::bigint,
    in_flight = scope.in_flight + 1,
    updated_at = now()
  FROM chain
  WHERE scope.scope_key = chain.key
    AND (chain.limit_nano_usd IS NULL OR scope.spent_nano_usd + scope.reserved_nano_usd + $4::bigint <= chain.limit_nano_usd)
    AND (chain.max_in_flight IS NULL OR scope.in_flight < chain.max_in_flight)
  RETURNING scope.scope_key
), all_fit AS (
  SELECT (SELECT count(*) FROM reserved) = cardinality($1::text[]) AS fit
), leases AS (
  INSERT INTO ${s}.budget_leases (scope_key, lease_id, amount_nano_usd, expires_at)
  SELECT scope_key, $5, $4::bigint, now() + $6::bigint * interval '1 millisecond'
  FROM reserved WHERE (SELECT fit FROM all_fit)
), record AS (
  INSERT INTO ${s}.budget_lease_records (lease_id, scope_key, state, reserved_nano_usd, forget_after)
  SELECT $5, $7, 'held', $4::bigint, now() + interval '${HELD_RECORD_MS} milliseconds'
  WHERE (SELECT fit FROM all_fit)
)
SELECT fit FROM all_fit`,
    record: `SELECT state, answer FROM ${s}.budget_lease_records WHERE lease_id = $1 FOR UPDATE`,
    take: `WITH lease AS (
  DELETE FROM ${s}.budget_leases WHERE lease_id = $1 AND scope_key = ANY($2::text[])
  RETURNING scope_key, amount_nano_usd, expires_at <= now() AS expired
), entry AS (
  DELETE FROM ${s}.budget_unsettled WHERE lease_id = $1 AND scope_key = ANY($2::text[])
  RETURNING scope_key, amount_nano_usd
)
SELECT 'lease' AS kind, scope_key, amount_nano_usd, expired FROM lease
UNION ALL SELECT 'unsettled', scope_key, amount_nano_usd, false FROM entry`,
    // The proposed row must pass the table's CHECK before its conflict is found: what a settlement
    // returns (never negative) is carried positive and subtracted. A scope with no row held nothing.
    end: `WITH counted AS (
  INSERT INTO ${s}.budget_scopes AS scope
    (scope_key, spent_nano_usd, reserved_nano_usd, in_flight, unsettled_nano_usd, unsettled_calls)
  SELECT key, spent, -reserved, -in_flight, unsettled, unsettled_calls
  FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::integer[], $5::bigint[], $6::integer[])
    AS delta(key, spent, reserved, in_flight, unsettled, unsettled_calls)
  ORDER BY key
  ON CONFLICT (scope_key) DO UPDATE SET
    spent_nano_usd = scope.spent_nano_usd + EXCLUDED.spent_nano_usd,
    reserved_nano_usd = scope.reserved_nano_usd - EXCLUDED.reserved_nano_usd,
    in_flight = scope.in_flight - EXCLUDED.in_flight,
    unsettled_nano_usd = scope.unsettled_nano_usd + EXCLUDED.unsettled_nano_usd,
    unsettled_calls = scope.unsettled_calls + EXCLUDED.unsettled_calls,
    updated_at = now()
), entries AS (
  INSERT INTO ${s}.budget_unsettled (scope_key, lease_id, amount_nano_usd, counted_at)
  SELECT key, $8, $9::bigint, now() FROM unnest($7::text[]) AS key
  ON CONFLICT (scope_key, lease_id) DO UPDATE SET amount_nano_usd = EXCLUDED.amount_nano_usd, counted_at = now()
), forgotten AS (
  DELETE FROM ${s}.budget_lease_records WHERE lease_id IN (
    SELECT lease_id FROM ${s}.budget_lease_records WHERE forget_after < now() AND lease_id <> $8 LIMIT ${PRUNE_BATCH}
  )
)
INSERT INTO ${s}.budget_lease_records (lease_id, scope_key, state, actual_nano_usd, unsettled, answer, ended_at, forget_after)
VALUES ($8, $10, 'ended', $9::bigint, $12, $11, now(), now() + $13::bigint * interval '1 millisecond')
ON CONFLICT (lease_id) DO UPDATE SET state = 'ended', actual_nano_usd = EXCLUDED.actual_nano_usd,
  unsettled = EXCLUDED.unsettled, answer = EXCLUDED.answer, ended_at = now(), forget_after = EXCLUDED.forget_after`,
    renew: `UPDATE ${s}.budget_leases AS lease SET expires_at = now() + $3::bigint * interval '1 millisecond'
FROM unnest($1::text[], $2::text[]) AS wanted(lease_id, scope_key)
WHERE lease.lease_id = wanted.lease_id AND lease.scope_key = wanted.scope_key AND lease.expires_at > now()
RETURNING lease.lease_id, lease.scope_key`,
  };
}
