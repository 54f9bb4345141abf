// The hot path of PostgresBudgetStore's SQL (functions version 10): acquisitions and settlements of one budget
// tree all touch its root scope, so what runs while a transaction holds the root's row lock decides how many
// of them one server commits per second. An acquisition does every statement that touches only its own rows
// (its lease's record and rows, the sweep check, the settlements' shard sums) before it takes the chain's scope
// rows, last, in key order; a settlement never takes them at all: its changes go to one of SHARDS rows of each
// scope (budget_scope_shards, by the lease id's hash), which readers add to the scope's own row. See
// docs/budgets-postgres.md ("Where the time goes on one hot row") for the guarantee this rests on.
import { PRUNE_BATCH } from './retention.js';

/**
 * What every function runs with (version 7), for its own statements only: PostgreSQL's catalog as its path (no
 * object of another schema is ever resolved), its plans made once per connection (generic: array parameters made
 * PostgreSQL plan them afresh on each call), and index scans, never a sequential one where an index serves: a
 * generic plan made while a table was small kept scanning it whole once it grew (the lease records' pruning, the
 * sweep check on every acquisition, over tables full of settled leases' dead rows).
 */
export const FUNCTION_SETTINGS =
  'SET search_path = pg_catalog, pg_temp SET plan_cache_mode = force_generic_plan SET enable_seqscan = off';

/**
 * Whether a sweep is due in the chain's scopes (`keys`): a lease of them has expired, or an unsettled entry is
 * past the retention (`retention_ms`). A condition, looked at without a lock, by index.
 */
export function sweepDue(s: string): string {
  return `EXISTS (SELECT 1 FROM ${s}.budget_leases WHERE scope_key = ANY(keys) AND expires_at <= now())
    OR EXISTS (SELECT 1 FROM ${s}.budget_unsettled
      WHERE scope_key = ANY(keys) AND counted_at < now() - retention_ms * interval '1 millisecond')`;
}

/** Rows per scope that settlements add their changes to (a lease's by the hash of its id). */
export const SHARDS = 16;

/** One settlement in this many prunes the lease records past their time: those of one shard. */
const PRUNE_EVERY = SHARDS;

/** How long a lease's record lives while held (renewals do not extend it): a late settlement is still recognised. */
export const HELD_RECORD_MS = 24 * 3_600_000;

/** Per scope of the chain (`chain.key`), the sums of its shard rows, as `sh`: a LATERAL join's text. */
function shardSums(s: string): string {
  return `LEFT JOIN LATERAL (
    SELECT sum(x.spent_nano_usd)::bigint AS spent, sum(x.reserved_nano_usd)::bigint AS reserved,
      sum(x.in_flight)::integer AS in_flight, sum(x.unsettled_nano_usd)::bigint AS unsettled,
      sum(x.unsettled_calls)::integer AS calls
    FROM ${s}.budget_scope_shards AS x WHERE x.scope_key = chain.key
  ) AS sh ON true`;
}

/** `budget_totals`: a chain's counters, each scope's row plus its shard rows, in the chain's order; a plain read. */
export function totalsSql(s: string): string {
  return `-- A chain's counters: each scope's row plus its shard rows, in the chain's order (no lock).
CREATE OR REPLACE FUNCTION ${s}.budget_totals(keys text[],
  OUT spent bigint[], OUT reserved bigint[], OUT in_flight integer[], OUT unsettled bigint[], OUT unsettled_calls integer[])
LANGUAGE plpgsql STABLE ${FUNCTION_SETTINGS} AS $$
BEGIN
  SELECT array_agg(coalesce(scope.spent_nano_usd, 0) + coalesce(sh.spent, 0) ORDER BY chain.position),
    array_agg(coalesce(scope.reserved_nano_usd, 0) + coalesce(sh.reserved, 0) ORDER BY chain.position),
    array_agg(coalesce(scope.in_flight, 0) + coalesce(sh.in_flight, 0) ORDER BY chain.position),
    array_agg(coalesce(scope.unsettled_nano_usd, 0) + coalesce(sh.unsettled, 0) ORDER BY chain.position),
    array_agg(coalesce(scope.unsettled_calls, 0) + coalesce(sh.calls, 0) ORDER BY chain.position)
  INTO spent, reserved, in_flight, unsettled, unsettled_calls
  FROM unnest(keys) WITH ORDINALITY AS chain(key, position)
  LEFT JOIN ${s}.budget_scopes AS scope ON scope.scope_key = chain.key
  ${shardSums(s)};
END
$$;
`;
}

/**
 * The chain's shard sums, in its order, into `sh_spent`, `sh_reserved`, `sh_in_flight`, `sh_unsettled` and
 * `sh_calls`: a statement's text. Read before the scope rows are locked, and again before a refusal.
 */
export function readShardsSql(s: string): string {
  return `SELECT array_agg(coalesce(sh.spent, 0) ORDER BY chain.position),
    array_agg(coalesce(sh.reserved, 0) ORDER BY chain.position), array_agg(coalesce(sh.in_flight, 0) ORDER BY chain.position),
    array_agg(coalesce(sh.unsettled, 0) ORDER BY chain.position), array_agg(coalesce(sh.calls, 0) ORDER BY chain.position)
  INTO sh_spent, sh_reserved, sh_in_flight, sh_unsettled, sh_calls
  FROM unnest(keys) WITH ORDINALITY AS chain(key, position)
  ${shardSums(s)}`;
}

/**
 * The variables an acquisition keeps a chain's counters in (`n` scopes): each scope's row as locked (`row_*`, then
 * `main_*` in the chain's order) and its shard sums (`sh_*`, from {@link readShardsSql}). Declarations' text.
 */
export const CHAIN_COUNTERS = `row_spent bigint; row_reserved bigint; row_in_flight integer; row_unsettled bigint; row_calls integer;
  main_spent bigint[] := array_fill(0::bigint, ARRAY[n]);
  main_reserved bigint[] := array_fill(0::bigint, ARRAY[n]);
  main_in_flight integer[] := array_fill(0, ARRAY[n]);
  main_unsettled bigint[] := array_fill(0::bigint, ARRAY[n]);
  main_calls integer[] := array_fill(0, ARRAY[n]);
  sh_spent bigint[]; sh_reserved bigint[]; sh_in_flight integer[]; sh_unsettled bigint[]; sh_calls integer[];`;

/** `budget_acquire` (version 6): see the comment in its text. */
export function acquireSql(s: string): string {
  const readShards = readShardsSql(s);
  return `-- A reservation of amount in every scope of the chain, or in none. First what touches only this lease's rows:
-- its record (the same lease id asked twice waits for the first here, then answers as it did), a sweep where
-- one is due, its lease rows, the chain's shard sums. Last, in key order (two chains never deadlock), each
-- scope's row made or locked and reserved in one upsert; then the checks in the order spend, reservations,
-- slots, on the rows as locked plus the shards (read again before a refusal). A refusal undoes the reservation
-- and the lease's rows in the same transaction (nothing of it outlives the commit, which then does not wait
-- for the disk). granted, or reason ('ended', 'spend', 'reserved', 'in_flight') and the 0-based index of the
-- scope that refused; the counters as they are after it. A grant is on disk before it is answered, whatever
-- the server's synchronous_commit: 'off' there is 'on' for this transaction.
CREATE OR REPLACE FUNCTION ${s}.budget_acquire(keys text[], limits bigint[], max_in_flight integer[],
  amount bigint, lease text, ttl_ms bigint, retention_ms bigint, timeout_ms bigint,
  OUT granted boolean, OUT reason text, OUT scope_index integer,
  OUT spent bigint[], OUT reserved bigint[], OUT in_flight integer[], OUT unsettled bigint[], OUT unsettled_calls integer[])
LANGUAGE plpgsql ${FUNCTION_SETTINGS} AS $$
DECLARE
  ignored text;
  n integer := cardinality(keys);
  sorted text[] := ARRAY(SELECT k FROM unnest(keys) AS k ORDER BY k);
  record_state text;
  scope_name text;
  at integer;
  ${CHAIN_COUNTERS}
BEGIN
  ignored := set_config('lock_timeout', timeout_ms || 'ms', true);
  IF current_setting('synchronous_commit') = 'off' THEN
    ignored := set_config('synchronous_commit', 'on', true);
  END IF;
  INSERT INTO ${s}.budget_lease_records (lease_id, scope_key, state, reserved_nano_usd, forget_after)
  VALUES (lease, keys[n], 'held', amount, now() + interval '${HELD_RECORD_MS} milliseconds')
  ON CONFLICT (lease_id) DO NOTHING;
  IF NOT FOUND THEN
    SELECT r.state INTO record_state FROM ${s}.budget_lease_records AS r WHERE r.lease_id = lease;
    SELECT t.spent, t.reserved, t.in_flight, t.unsettled, t.unsettled_calls
    INTO spent, reserved, in_flight, unsettled, unsettled_calls FROM ${s}.budget_totals(keys) AS t;
    granted := record_state = 'held';
    IF NOT granted THEN reason := 'ended'; scope_index := 0; END IF;
    RETURN;
  END IF;
  IF ${sweepDue(s)} THEN
    PERFORM ${s}.budget_sweep(keys, retention_ms);
  END IF;
  INSERT INTO ${s}.budget_leases (scope_key, lease_id, amount_nano_usd, expires_at)
  SELECT key, lease, amount, now() + ttl_ms * interval '1 millisecond' FROM unnest(keys) AS key;
  ${readShards};
  FOREACH scope_name IN ARRAY sorted LOOP
    INSERT INTO ${s}.budget_scopes AS scope (scope_key, reserved_nano_usd, in_flight) VALUES (scope_name, amount, 1)
    ON CONFLICT (scope_key) DO UPDATE SET reserved_nano_usd = scope.reserved_nano_usd + amount,
      in_flight = scope.in_flight + 1, updated_at = now()
    RETURNING scope.spent_nano_usd, scope.reserved_nano_usd - amount, scope.in_flight - 1,
      scope.unsettled_nano_usd, scope.unsettled_calls
    INTO row_spent, row_reserved, row_in_flight, row_unsettled, row_calls;
    at := array_position(keys, scope_name);
    main_spent[at] := row_spent; main_reserved[at] := row_reserved; main_in_flight[at] := row_in_flight;
    main_unsettled[at] := row_unsettled; main_calls[at] := row_calls;
  END LOOP;
  FOR attempt IN 1..2 LOOP
    spent := '{}'; reserved := '{}'; in_flight := '{}'; unsettled := '{}'; unsettled_calls := '{}';
    FOR i IN 1..n LOOP
      spent := spent || (main_spent[i] + sh_spent[i]);
      reserved := reserved || (main_reserved[i] + sh_reserved[i]);
      in_flight := in_flight || (main_in_flight[i] + sh_in_flight[i]);
      unsettled := unsettled || (main_unsettled[i] + sh_unsettled[i]);
      unsettled_calls := unsettled_calls || (main_calls[i] + sh_calls[i]);
    END LOOP;
    reason := NULL;
    FOR i IN 1..n LOOP
      IF limits[i] IS NOT NULL AND spent[i] + amount > limits[i] THEN
        reason := 'spend'; scope_index := i - 1; EXIT;
      END IF;
    END LOOP;
    IF reason IS NULL THEN
      FOR i IN 1..n LOOP
        IF limits[i] IS NOT NULL AND spent[i] + reserved[i] + amount > limits[i] THEN
          reason := 'reserved'; scope_index := i - 1; EXIT;
        END IF;
      END LOOP;
    END IF;
    IF reason IS NULL THEN
      FOR i IN 1..n LOOP
        IF max_in_flight[i] IS NOT NULL AND in_flight[i] >= max_in_flight[i] THEN
          reason := 'in_flight'; scope_index := i - 1; EXIT;
        END IF;
      END LOOP;
    END IF;
    EXIT WHEN reason IS NULL OR attempt = 2;
    -- Settlements that committed while this one waited for the rows: seen before it refuses.
    ${readShards};
  END LOOP;
  IF reason IS NOT NULL THEN
    granted := false;
    UPDATE ${s}.budget_scopes AS scope SET reserved_nano_usd = scope.reserved_nano_usd - amount,
      in_flight = scope.in_flight - 1
    WHERE scope.scope_key = ANY(keys);
    DELETE FROM ${s}.budget_leases AS l WHERE l.lease_id = lease AND l.scope_key = ANY(keys);
    DELETE FROM ${s}.budget_lease_records AS r WHERE r.lease_id = lease;
    -- Nothing of this transaction outlives it: its commit need not wait for the disk.
    ignored := set_config('synchronous_commit', 'off', true);
    RETURN;
  END IF;
  FOR i IN 1..n LOOP
    reserved[i] := reserved[i] + amount;
    in_flight[i] := in_flight[i] + 1;
  END LOOP;
  granted := true;
END
$$;
`;
}

/** `budget_settle` (version 6): see the comment in its text. */
export function settleSql(s: string): string {
  return `-- A lease's settlement at actual (unsettled: counted at a worst case). Returns whether the lease was still
-- held. The lease's record is locked first (a settlement sent twice waits, then answers as the first did). Its
-- changes to each scope commute (reserved -, in_flight -, spent + actual) and go to the scope's shard row of
-- this lease (by the hash of its id), in key order, as the last statement: a settlement never waits on the
-- scope rows acquisitions lock. A lease found expired but not yet swept counts as swept and replaced by this
-- settlement. durable: on disk before it is answered, whatever the server's synchronous_commit (as a grant);
-- false: this transaction's commit does not wait for its WAL flush (synchronous_commit off, this transaction only).
CREATE OR REPLACE FUNCTION ${s}.budget_settle(lease text, keys text[], actual bigint, is_unsettled boolean,
  leased boolean, retention_ms bigint, durable boolean, timeout_ms bigint) RETURNS boolean
LANGUAGE plpgsql ${FUNCTION_SETTINGS} AS $$
DECLARE
  ignored text;
  record_state text;
  record_answer boolean;
  held boolean;
  counted boolean;
  scope_name text;
  taken bigint;
  expired boolean;
  worst bigint;
  d_spent bigint;
  d_reserved bigint;
  d_in_flight integer;
  d_unsettled bigint;
  d_calls integer;
  own_shard smallint := (hashtext(lease) & ${SHARDS - 1})::smallint;
  sorted text[] := ARRAY(SELECT k FROM unnest(keys) AS k ORDER BY k);
  spent_deltas bigint[] := '{}';
  reserved_deltas bigint[] := '{}';
  in_flight_deltas integer[] := '{}';
  unsettled_deltas bigint[] := '{}';
  calls_deltas integer[] := '{}';
  entry_keys text[] := '{}';
  taken_keys text[];
  taken_amounts bigint[];
  taken_expired boolean[];
  worst_keys text[];
  worst_amounts bigint[];
  at integer;
BEGIN
  ignored := set_config('lock_timeout', timeout_ms || 'ms', true);
  IF NOT durable THEN
    ignored := set_config('synchronous_commit', 'off', true);
  ELSIF current_setting('synchronous_commit') = 'off' THEN
    ignored := set_config('synchronous_commit', 'on', true);
  END IF;
  SELECT r.state, r.answer INTO record_state, record_answer
  FROM ${s}.budget_lease_records AS r WHERE r.lease_id = lease FOR UPDATE;
  IF record_state = 'ended' THEN
    RETURN coalesce(record_answer, false);
  END IF;
  held := record_state IS NOT DISTINCT FROM 'held';
  leased := held OR coalesce(leased, false);
  WITH gone AS (
    DELETE FROM ${s}.budget_leases AS l WHERE l.lease_id = lease AND l.scope_key = ANY(keys)
    RETURNING l.scope_key, l.amount_nano_usd, l.expires_at <= now() AS expired
  )
  SELECT array_agg(gone.scope_key), array_agg(gone.amount_nano_usd), array_agg(gone.expired)
  INTO taken_keys, taken_amounts, taken_expired FROM gone;
  -- A scope whose lease row is gone (swept, or never here) may hold the lease's unsettled entry.
  IF coalesce(cardinality(taken_keys), 0) < cardinality(keys) THEN
    WITH gone AS (
      DELETE FROM ${s}.budget_unsettled AS u WHERE u.lease_id = lease AND u.scope_key = ANY(keys)
      RETURNING u.scope_key, u.amount_nano_usd
    )
    SELECT array_agg(gone.scope_key), array_agg(gone.amount_nano_usd) INTO worst_keys, worst_amounts FROM gone;
  END IF;
  FOREACH scope_name IN ARRAY sorted LOOP
    at := array_position(taken_keys, scope_name);
    taken := taken_amounts[at]; expired := coalesce(taken_expired[at], false);
    worst := worst_amounts[array_position(worst_keys, scope_name)];
    d_spent := 0; d_reserved := 0; d_in_flight := 0; d_unsettled := 0; d_calls := 0;
    counted := true;
    IF taken IS NOT NULL THEN
      d_reserved := -taken;
      d_in_flight := -1;
      IF expired THEN held := false; END IF;
    ELSE
      held := false;
      IF worst IS NOT NULL THEN
        d_spent := -worst; d_unsettled := -worst; d_calls := -1;
      ELSIF leased THEN
        -- Pruned (or settled before and forgotten): it stays at its worst case, counted once.
        counted := false;
      END IF;
    END IF;
    IF counted THEN
      d_spent := d_spent + actual;
      IF is_unsettled THEN
        d_unsettled := d_unsettled + actual;
        d_calls := d_calls + 1;
        entry_keys := entry_keys || scope_name;
      END IF;
    END IF;
    spent_deltas := spent_deltas || d_spent;
    reserved_deltas := reserved_deltas || d_reserved;
    in_flight_deltas := in_flight_deltas || d_in_flight;
    unsettled_deltas := unsettled_deltas || d_unsettled;
    calls_deltas := calls_deltas || d_calls;
  END LOOP;
  IF cardinality(entry_keys) > 0 THEN
    INSERT INTO ${s}.budget_unsettled (scope_key, lease_id, amount_nano_usd, counted_at)
    SELECT k, lease, actual, now() FROM unnest(entry_keys) AS k
    ON CONFLICT (scope_key, lease_id) DO UPDATE SET amount_nano_usd = EXCLUDED.amount_nano_usd, counted_at = now();
  END IF;
  -- One settlement in ${PRUNE_EVERY} (by its shard) prunes up to ${PRUNE_BATCH} records past their time, skipping those
  -- another is pruning: each settlement ends at most one record, so pruning keeps up.
  IF own_shard = 0 THEN
    DELETE FROM ${s}.budget_lease_records WHERE lease_id IN (
      SELECT stale.lease_id FROM ${s}.budget_lease_records AS stale
      WHERE stale.forget_after < now() AND stale.lease_id <> lease LIMIT ${PRUNE_BATCH} FOR UPDATE SKIP LOCKED);
  END IF;
  INSERT INTO ${s}.budget_lease_records
    (lease_id, scope_key, state, actual_nano_usd, unsettled, answer, ended_at, forget_after)
  VALUES (lease, keys[cardinality(keys)], 'ended', actual, is_unsettled, held, now(),
    now() + retention_ms * interval '1 millisecond')
  ON CONFLICT (lease_id) DO UPDATE SET state = 'ended', actual_nano_usd = EXCLUDED.actual_nano_usd,
    unsettled = EXCLUDED.unsettled, answer = EXCLUDED.answer, ended_at = now(), forget_after = EXCLUDED.forget_after;
  -- A scope with no row of its own yet (a lease granted elsewhere, a window pruned since) gets one, so it is
  -- listed; an existing row is only looked at, never waited on. A lease row found means its scope's row is there.
  IF coalesce(cardinality(taken_keys), 0) < cardinality(keys) THEN
    INSERT INTO ${s}.budget_scopes (scope_key)
    SELECT k FROM unnest(sorted) AS k
    WHERE NOT EXISTS (SELECT 1 FROM ${s}.budget_scopes AS scope WHERE scope.scope_key = k)
    ORDER BY k ON CONFLICT (scope_key) DO NOTHING;
  END IF;
  -- The changes commute: added to this lease's shard rows in key order, with no read first.
  INSERT INTO ${s}.budget_scope_shards AS x
    (scope_key, shard, spent_nano_usd, reserved_nano_usd, in_flight, unsettled_nano_usd, unsettled_calls)
  SELECT d.key, own_shard, d.spent, d.reserved, d.in_flight, d.unsettled, d.calls
  FROM unnest(sorted, spent_deltas, reserved_deltas, in_flight_deltas, unsettled_deltas, calls_deltas)
    AS d(key, spent, reserved, in_flight, unsettled, calls)
  ORDER BY d.key
  ON CONFLICT (scope_key, shard) DO UPDATE SET
    spent_nano_usd = x.spent_nano_usd + EXCLUDED.spent_nano_usd,
    reserved_nano_usd = x.reserved_nano_usd + EXCLUDED.reserved_nano_usd,
    in_flight = x.in_flight + EXCLUDED.in_flight,
    unsettled_nano_usd = x.unsettled_nano_usd + EXCLUDED.unsettled_nano_usd,
    unsettled_calls = x.unsettled_calls + EXCLUDED.unsettled_calls;
  RETURN held;
END
$$;
`;
}
