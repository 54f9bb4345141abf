-- What PostgresBudgetStore's migrate() ran for schema "v6" at functions version 6 (settlements on shard rows,
-- before the sweep check moved into budget_acquire and the functions kept to index scans):
-- test/postgres-old-schema.test.ts makes a database of it, spends through it, and upgrades it.
CREATE SCHEMA IF NOT EXISTS "v6";

-- One row per scope ('{run-42}', '{run-42}/judge'): its counters.
CREATE TABLE IF NOT EXISTS "v6".budget_scopes (
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
CREATE TABLE IF NOT EXISTS "v6".budget_leases (
  scope_key       text        NOT NULL,
  lease_id        text        NOT NULL,
  amount_nano_usd bigint      NOT NULL,
  expires_at      timestamptz NOT NULL,
  PRIMARY KEY (scope_key, lease_id)
);
CREATE INDEX IF NOT EXISTS budget_leases_expiry ON "v6".budget_leases (scope_key, expires_at);

-- Calls counted at their worst case, until a late settlement replaces them or the retention ends.
CREATE TABLE IF NOT EXISTS "v6".budget_unsettled (
  scope_key       text        NOT NULL,
  lease_id        text        NOT NULL,
  amount_nano_usd bigint      NOT NULL,
  counted_at      timestamptz NOT NULL,
  PRIMARY KEY (scope_key, lease_id)
);
CREATE INDEX IF NOT EXISTS budget_unsettled_age ON "v6".budget_unsettled (scope_key, counted_at);

-- Every lease by id (what makes each operation idempotent), and how it ended.
CREATE TABLE IF NOT EXISTS "v6".budget_lease_records (
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
CREATE INDEX IF NOT EXISTS budget_lease_records_forget ON "v6".budget_lease_records (forget_after);

-- The operations, one function call each (one round trip, one commit). Limits are not stored: each call
-- passes its own. Amounts are nano-dollars; durations milliseconds; now() is the transaction's start.
-- timeout_ms: the store's statementTimeoutMs, set as this transaction's lock_timeout, so a row lock held
-- elsewhere ends the wait on the server (55P03) before the client gives up on it: no backend is left
-- waiting behind a client that went away, on a caller's pool (whose sessions the store does not own) too.

-- Where a lease of the scopes has expired or an unsettled entry is past the retention (looked at without a
-- lock): the scopes' rows locked in key order, the expired leases made unsettled spend (their slots freed),
-- old unsettled entries pruned.
CREATE OR REPLACE FUNCTION "v6".budget_sweep(keys text[], retention_ms bigint) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM "v6".budget_leases WHERE scope_key = ANY(keys) AND expires_at <= now())
    AND NOT EXISTS (SELECT 1 FROM "v6".budget_unsettled
      WHERE scope_key = ANY(keys) AND counted_at < now() - retention_ms * interval '1 millisecond') THEN
    RETURN;
  END IF;
  PERFORM 1 FROM "v6".budget_scopes WHERE scope_key = ANY(keys) ORDER BY scope_key FOR UPDATE;
  WITH expired AS (
    DELETE FROM "v6".budget_leases
    WHERE scope_key = ANY(keys) AND expires_at <= now()
    RETURNING scope_key, lease_id, amount_nano_usd
  ), counted AS (
    INSERT INTO "v6".budget_unsettled (scope_key, lease_id, amount_nano_usd, counted_at)
    SELECT scope_key, lease_id, amount_nano_usd, now() FROM expired
    ON CONFLICT (scope_key, lease_id) DO NOTHING
  ), old AS (
    SELECT scope_key, lease_id FROM "v6".budget_unsettled
    WHERE scope_key = ANY(keys) AND counted_at < now() - retention_ms * interval '1 millisecond'
    ORDER BY counted_at LIMIT 100
  ), pruned AS (
    DELETE FROM "v6".budget_unsettled AS entry USING old
    WHERE entry.scope_key = old.scope_key AND entry.lease_id = old.lease_id
  )
  UPDATE "v6".budget_scopes AS scope SET
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

-- A reservation of amount in every scope of the chain, or in none. First what touches only this lease's rows:
-- its record (the same lease id asked twice waits for the first here, then answers as it did), a sweep where
-- one is due, its lease rows, the chain's shard sums. Last, in key order (two chains never deadlock), each
-- scope's row made or locked and reserved in one upsert; then the checks in the order spend, reservations,
-- slots, on the rows as locked plus the shards (read again before a refusal). A refusal undoes the reservation
-- and the lease's rows in the same transaction (nothing of it outlives the commit, which then does not wait
-- for the disk). granted, or reason ('ended', 'spend', 'reserved', 'in_flight') and the 0-based index of the
-- scope that refused; the counters as they are after it. A grant is on disk before it is answered, whatever
-- the server's synchronous_commit: 'off' there is 'on' for this transaction.
CREATE OR REPLACE FUNCTION "v6".budget_acquire(keys text[], limits bigint[], max_in_flight integer[],
  amount bigint, lease text, ttl_ms bigint, retention_ms bigint, timeout_ms bigint,
  OUT granted boolean, OUT reason text, OUT scope_index integer,
  OUT spent bigint[], OUT reserved bigint[], OUT in_flight integer[], OUT unsettled bigint[], OUT unsettled_calls integer[])
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  n integer := cardinality(keys);
  sorted text[] := ARRAY(SELECT k FROM unnest(keys) AS k ORDER BY k);
  record_state text;
  scope_name text;
  at integer;
  row_spent bigint; row_reserved bigint; row_in_flight integer; row_unsettled bigint; row_calls integer;
  main_spent bigint[] := array_fill(0::bigint, ARRAY[n]);
  main_reserved bigint[] := array_fill(0::bigint, ARRAY[n]);
  main_in_flight integer[] := array_fill(0, ARRAY[n]);
  main_unsettled bigint[] := array_fill(0::bigint, ARRAY[n]);
  main_calls integer[] := array_fill(0, ARRAY[n]);
  sh_spent bigint[]; sh_reserved bigint[]; sh_in_flight integer[]; sh_unsettled bigint[]; sh_calls integer[];
BEGIN
  PERFORM set_config('lock_timeout', timeout_ms || 'ms', true);
  IF current_setting('synchronous_commit') = 'off' THEN
    PERFORM set_config('synchronous_commit', 'on', true);
  END IF;
  INSERT INTO "v6".budget_lease_records (lease_id, scope_key, state, reserved_nano_usd, forget_after)
  VALUES (lease, keys[n], 'held', amount, now() + interval '86400000 milliseconds')
  ON CONFLICT (lease_id) DO NOTHING;
  IF NOT FOUND THEN
    SELECT r.state INTO record_state FROM "v6".budget_lease_records AS r WHERE r.lease_id = lease;
    SELECT t.spent, t.reserved, t.in_flight, t.unsettled, t.unsettled_calls
    INTO spent, reserved, in_flight, unsettled, unsettled_calls FROM "v6".budget_totals(keys) AS t;
    granted := record_state = 'held';
    IF NOT granted THEN reason := 'ended'; scope_index := 0; END IF;
    RETURN;
  END IF;
  PERFORM "v6".budget_sweep(keys, retention_ms);
  INSERT INTO "v6".budget_leases (scope_key, lease_id, amount_nano_usd, expires_at)
  SELECT key, lease, amount, now() + ttl_ms * interval '1 millisecond' FROM unnest(keys) AS key;
  SELECT array_agg(coalesce(sh.spent, 0) ORDER BY chain.position),
    array_agg(coalesce(sh.reserved, 0) ORDER BY chain.position), array_agg(coalesce(sh.in_flight, 0) ORDER BY chain.position),
    array_agg(coalesce(sh.unsettled, 0) ORDER BY chain.position), array_agg(coalesce(sh.calls, 0) ORDER BY chain.position)
  INTO sh_spent, sh_reserved, sh_in_flight, sh_unsettled, sh_calls
  FROM unnest(keys) WITH ORDINALITY AS chain(key, position)
  LEFT JOIN LATERAL (
    SELECT sum(x.spent_nano_usd)::bigint AS spent, sum(x.reserved_nano_usd)::bigint AS reserved,
      sum(x.in_flight)::integer AS in_flight, sum(x.unsettled_nano_usd)::bigint AS unsettled,
      sum(x.unsettled_calls)::integer AS calls
    FROM "v6".budget_scope_shards AS x WHERE x.scope_key = chain.key
  ) AS sh ON true;
  FOREACH scope_name IN ARRAY sorted LOOP
    INSERT INTO "v6".budget_scopes AS scope (scope_key, reserved_nano_usd, in_flight) VALUES (scope_name, amount, 1)
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
    SELECT array_agg(coalesce(sh.spent, 0) ORDER BY chain.position),
    array_agg(coalesce(sh.reserved, 0) ORDER BY chain.position), array_agg(coalesce(sh.in_flight, 0) ORDER BY chain.position),
    array_agg(coalesce(sh.unsettled, 0) ORDER BY chain.position), array_agg(coalesce(sh.calls, 0) ORDER BY chain.position)
  INTO sh_spent, sh_reserved, sh_in_flight, sh_unsettled, sh_calls
  FROM unnest(keys) WITH ORDINALITY AS chain(key, position)
  LEFT JOIN LATERAL (
    SELECT sum(x.spent_nano_usd)::bigint AS spent, sum(x.reserved_nano_usd)::bigint AS reserved,
      sum(x.in_flight)::integer AS in_flight, sum(x.unsettled_nano_usd)::bigint AS unsettled,
      sum(x.unsettled_calls)::integer AS calls
    FROM "v6".budget_scope_shards AS x WHERE x.scope_key = chain.key
  ) AS sh ON true;
  END LOOP;
  IF reason IS NOT NULL THEN
    granted := false;
    UPDATE "v6".budget_scopes AS scope SET reserved_nano_usd = scope.reserved_nano_usd - amount,
      in_flight = scope.in_flight - 1
    WHERE scope.scope_key = ANY(keys);
    DELETE FROM "v6".budget_leases AS l WHERE l.lease_id = lease AND l.scope_key = ANY(keys);
    DELETE FROM "v6".budget_lease_records AS r WHERE r.lease_id = lease;
    -- Nothing of this transaction outlives it: its commit need not wait for the disk.
    PERFORM set_config('synchronous_commit', 'off', true);
    RETURN;
  END IF;
  FOR i IN 1..n LOOP
    reserved[i] := reserved[i] + amount;
    in_flight[i] := in_flight[i] + 1;
  END LOOP;
  granted := true;
END
$$;

-- A lease's settlement at actual (unsettled: counted at a worst case). Returns whether the lease was still
-- held. The lease's record is locked first (a settlement sent twice waits, then answers as the first did). Its
-- changes to each scope commute (reserved -, in_flight -, spent + actual) and go to the scope's shard row of
-- this lease (by the hash of its id), in key order, as the last statement: a settlement never waits on the
-- scope rows acquisitions lock. A lease found expired but not yet swept counts as swept and replaced by this
-- settlement. durable: on disk before it is answered, whatever the server's synchronous_commit (as a grant);
-- false: this transaction's commit does not wait for its WAL flush (synchronous_commit off, this transaction only).
CREATE OR REPLACE FUNCTION "v6".budget_settle(lease text, keys text[], actual bigint, is_unsettled boolean,
  leased boolean, retention_ms bigint, durable boolean, timeout_ms bigint) RETURNS boolean
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp SET plan_cache_mode = force_generic_plan AS $$
DECLARE
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
  own_shard smallint := (hashtext(lease) & 15)::smallint;
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
  PERFORM set_config('lock_timeout', timeout_ms || 'ms', true);
  IF NOT durable THEN
    PERFORM set_config('synchronous_commit', 'off', true);
  ELSIF current_setting('synchronous_commit') = 'off' THEN
    PERFORM set_config('synchronous_commit', 'on', true);
  END IF;
  SELECT r.state, r.answer INTO record_state, record_answer
  FROM "v6".budget_lease_records AS r WHERE r.lease_id = lease FOR UPDATE;
  IF record_state = 'ended' THEN
    RETURN coalesce(record_answer, false);
  END IF;
  held := record_state IS NOT DISTINCT FROM 'held';
  leased := held OR coalesce(leased, false);
  WITH gone AS (
    DELETE FROM "v6".budget_leases AS l WHERE l.lease_id = lease AND l.scope_key = ANY(keys)
    RETURNING l.scope_key, l.amount_nano_usd, l.expires_at <= now() AS expired
  )
  SELECT array_agg(gone.scope_key), array_agg(gone.amount_nano_usd), array_agg(gone.expired)
  INTO taken_keys, taken_amounts, taken_expired FROM gone;
  -- A scope whose lease row is gone (swept, or never here) may hold the lease's unsettled entry.
  IF coalesce(cardinality(taken_keys), 0) < cardinality(keys) THEN
    WITH gone AS (
      DELETE FROM "v6".budget_unsettled AS u WHERE u.lease_id = lease AND u.scope_key = ANY(keys)
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
    INSERT INTO "v6".budget_unsettled (scope_key, lease_id, amount_nano_usd, counted_at)
    SELECT k, lease, actual, now() FROM unnest(entry_keys) AS k
    ON CONFLICT (scope_key, lease_id) DO UPDATE SET amount_nano_usd = EXCLUDED.amount_nano_usd, counted_at = now();
  END IF;
  -- One settlement in 16 (by its shard) prunes up to 100 records past their time, skipping those
  -- another is pruning: each settlement ends at most one record, so pruning keeps up.
  IF own_shard = 0 THEN
    DELETE FROM "v6".budget_lease_records WHERE lease_id IN (
      SELECT stale.lease_id FROM "v6".budget_lease_records AS stale
      WHERE stale.forget_after < now() AND stale.lease_id <> lease LIMIT 100 FOR UPDATE SKIP LOCKED);
  END IF;
  INSERT INTO "v6".budget_lease_records
    (lease_id, scope_key, state, actual_nano_usd, unsettled, answer, ended_at, forget_after)
  VALUES (lease, keys[cardinality(keys)], 'ended', actual, is_unsettled, held, now(),
    now() + retention_ms * interval '1 millisecond')
  ON CONFLICT (lease_id) DO UPDATE SET state = 'ended', actual_nano_usd = EXCLUDED.actual_nano_usd,
    unsettled = EXCLUDED.unsettled, answer = EXCLUDED.answer, ended_at = now(), forget_after = EXCLUDED.forget_after;
  -- A scope with no row of its own yet (a lease granted elsewhere, a window pruned since) gets one, so it is
  -- listed; an existing row is only looked at, never waited on. A lease row found means its scope's row is there.
  IF coalesce(cardinality(taken_keys), 0) < cardinality(keys) THEN
    INSERT INTO "v6".budget_scopes (scope_key)
    SELECT k FROM unnest(sorted) AS k
    WHERE NOT EXISTS (SELECT 1 FROM "v6".budget_scopes AS scope WHERE scope.scope_key = k)
    ORDER BY k ON CONFLICT (scope_key) DO NOTHING;
  END IF;
  -- The changes commute: added to this lease's shard rows in key order, with no read first.
  INSERT INTO "v6".budget_scope_shards AS x
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

-- Extends the live leases among the (lease, scope) pairs by ttl_ms; returns the pairs extended.
CREATE OR REPLACE FUNCTION "v6".budget_renew(lease_ids text[], keys text[], ttl_ms bigint, timeout_ms bigint)
RETURNS TABLE (lease_id text, scope_key text)
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  PERFORM set_config('lock_timeout', timeout_ms || 'ms', true);
  RETURN QUERY
  UPDATE "v6".budget_leases AS held SET expires_at = now() + ttl_ms * interval '1 millisecond'
  FROM unnest(lease_ids, keys) AS wanted(lease_id, scope_key)
  WHERE held.lease_id = wanted.lease_id AND held.scope_key = wanted.scope_key AND held.expires_at > now()
  RETURNING held.lease_id, held.scope_key;
END
$$;

-- Calendar windows (version 5): each window of a windowed scope is a scope row of its own, keyed
-- '{svc}/acme{2026-11-28T00:00:00.000Z}'; this table lists them per scope, so a past window is found,
-- listed and, once past its keep, pruned (with its rows) by the next acquisition in the scope.
CREATE TABLE IF NOT EXISTS "v6".budget_windows (
  scope_key  text        NOT NULL,                    -- the scope, without its window
  window_key text        NOT NULL,                    -- the window's scope row
  start_at   timestamptz NOT NULL,
  end_at     timestamptz NOT NULL,
  PRIMARY KEY (scope_key, window_key)
);
CREATE INDEX IF NOT EXISTS budget_windows_end ON "v6".budget_windows (scope_key, end_at);

-- Thresholds (version 5): per scope row (a window's own), how many of its thresholds were reported
-- reached, so each is reported once, to whichever process raised the mark.
CREATE TABLE IF NOT EXISTS "v6".budget_thresholds (
  scope_key text    PRIMARY KEY,
  mark      integer NOT NULL DEFAULT 0
);

-- Settlements (version 6): each adds its changes to one of 16 rows per scope (shard: the hash of its lease
-- id), never to the scope's own row, which acquisitions lock; a scope's counters are its row plus its shards.
CREATE TABLE IF NOT EXISTS "v6".budget_scope_shards (
  scope_key          text     NOT NULL,
  shard              smallint NOT NULL,
  spent_nano_usd     bigint   NOT NULL DEFAULT 0,
  reserved_nano_usd  bigint   NOT NULL DEFAULT 0,               -- negative: the reservations settled
  in_flight          integer  NOT NULL DEFAULT 0,               -- negative: the leases settled
  unsettled_nano_usd bigint   NOT NULL DEFAULT 0,
  unsettled_calls    integer  NOT NULL DEFAULT 0,
  PRIMARY KEY (scope_key, shard)
);

-- A chain's counters: each scope's row plus its shard rows, in the chain's order (no lock).
CREATE OR REPLACE FUNCTION "v6".budget_totals(keys text[],
  OUT spent bigint[], OUT reserved bigint[], OUT in_flight integer[], OUT unsettled bigint[], OUT unsettled_calls integer[])
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  SELECT array_agg(coalesce(scope.spent_nano_usd, 0) + coalesce(sh.spent, 0) ORDER BY chain.position),
    array_agg(coalesce(scope.reserved_nano_usd, 0) + coalesce(sh.reserved, 0) ORDER BY chain.position),
    array_agg(coalesce(scope.in_flight, 0) + coalesce(sh.in_flight, 0) ORDER BY chain.position),
    array_agg(coalesce(scope.unsettled_nano_usd, 0) + coalesce(sh.unsettled, 0) ORDER BY chain.position),
    array_agg(coalesce(scope.unsettled_calls, 0) + coalesce(sh.calls, 0) ORDER BY chain.position)
  INTO spent, reserved, in_flight, unsettled, unsettled_calls
  FROM unnest(keys) WITH ORDINALITY AS chain(key, position)
  LEFT JOIN "v6".budget_scopes AS scope ON scope.scope_key = chain.key
  LEFT JOIN LATERAL (
    SELECT sum(x.spent_nano_usd)::bigint AS spent, sum(x.reserved_nano_usd)::bigint AS reserved,
      sum(x.in_flight)::integer AS in_flight, sum(x.unsettled_nano_usd)::bigint AS unsettled,
      sum(x.unsettled_calls)::integer AS calls
    FROM "v6".budget_scope_shards AS x WHERE x.scope_key = chain.key
  ) AS sh ON true;
END
$$;

-- The counters of a chain, in its order (after a sweep where one is due, the chain's rows locked in key order).
CREATE OR REPLACE FUNCTION "v6".budget_counters(keys text[], retention_ms bigint, timeout_ms bigint,
  OUT spent bigint[], OUT reserved bigint[], OUT in_flight integer[], OUT unsettled bigint[], OUT unsettled_calls integer[])
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  PERFORM set_config('lock_timeout', timeout_ms || 'ms', true);
  PERFORM "v6".budget_sweep(keys, retention_ms);
  SELECT t.spent, t.reserved, t.in_flight, t.unsettled, t.unsettled_calls
  INTO spent, reserved, in_flight, unsettled, unsettled_calls FROM "v6".budget_totals(keys) AS t;
END
$$;

-- Per scope (asked[i]), the number of its n levels (levels[(i-1)*n+1 .. i*n], ascending nano-dollars)
-- its spend reaches, after a sweep where due; its mark raised to that. The chain's threshold rows (made when
-- missing) are locked in key order first, so two processes never both raise one mark, and the spend is read
-- after: the scope rows acquisitions lock are not waited on (but by a sweep). Returns per scope the mark before
-- and after, and the spend compared.
CREATE OR REPLACE FUNCTION "v6".budget_mark_thresholds(keys text[], asked boolean[], levels bigint[], n integer,
  retention_ms bigint, timeout_ms bigint, OUT marks_from integer[], OUT marks_to integer[], OUT spent bigint[])
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  before integer;
  reached integer;
BEGIN
  PERFORM set_config('lock_timeout', timeout_ms || 'ms', true);
  INSERT INTO "v6".budget_thresholds (scope_key, mark)
  SELECT k, 0 FROM unnest(keys) AS k
  WHERE NOT EXISTS (SELECT 1 FROM "v6".budget_thresholds AS t WHERE t.scope_key = k)
  ORDER BY k ON CONFLICT (scope_key) DO NOTHING;
  PERFORM 1 FROM "v6".budget_thresholds WHERE scope_key = ANY(keys) ORDER BY scope_key FOR UPDATE;
  SELECT c.spent INTO spent FROM "v6".budget_counters(keys, retention_ms, timeout_ms) AS c;
  marks_from := '{}';
  marks_to := '{}';
  FOR i IN 1..cardinality(keys) LOOP
    SELECT t.mark INTO before FROM "v6".budget_thresholds AS t WHERE t.scope_key = keys[i];
    before := coalesce(before, 0);
    reached := 0;
    IF asked[i] THEN
      FOR k IN 1..n LOOP
        IF levels[(i - 1) * n + k] <= spent[i] THEN reached := k; END IF;
      END LOOP;
    END IF;
    IF reached > before THEN
      UPDATE "v6".budget_thresholds AS t SET mark = greatest(t.mark, reached) WHERE t.scope_key = keys[i];
    END IF;
    marks_from := marks_from || before;
    marks_to := marks_to || greatest(before, reached);
  END LOOP;
END
$$;

-- budget_settle, then budget_mark_thresholds on the same chain, in one transaction: whether the lease was
-- still held, and per scope the mark before and after, and the spend compared (this settlement's included).
CREATE OR REPLACE FUNCTION "v6".budget_settle_marked(lease text, keys text[], actual bigint, is_unsettled boolean,
  leased boolean, retention_ms bigint, durable boolean, timeout_ms bigint, asked boolean[], levels bigint[],
  n integer, OUT held boolean, OUT marks_from integer[], OUT marks_to integer[], OUT spent bigint[])
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  held := "v6".budget_settle(lease, keys, actual, is_unsettled, leased, retention_ms, durable, timeout_ms);
  SELECT m.marks_from, m.marks_to, m.spent INTO marks_from, marks_to, spent
  FROM "v6".budget_mark_thresholds(keys, asked, levels, n, retention_ms, timeout_ms) AS m;
END
$$;

-- budget_acquire for a chain with windows (starts and ends in ms since the epoch, -1 for a scope without
-- one): 'window' and nothing written when now() is not within a scope's window, else budget_acquire's
-- answer; now_ms is the server's clock either way. Before it (no scope row locked yet) its windows are listed,
-- and up to 100 past windows of its scopes whose keep (3024000000 ms after their end) is
-- over, that hold no lease and that no other acquisition is pruning are pruned.
CREATE OR REPLACE FUNCTION "v6".budget_acquire_windowed(keys text[], limits bigint[], max_in_flight integer[],
  amount bigint, lease text, ttl_ms bigint, retention_ms bigint, timeout_ms bigint,
  base_keys text[], window_starts bigint[], window_ends bigint[],
  OUT granted boolean, OUT reason text, OUT scope_index integer,
  OUT spent bigint[], OUT reserved bigint[], OUT in_flight integer[], OUT unsettled bigint[], OUT unsettled_calls integer[],
  OUT now_ms bigint)
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp SET plan_cache_mode = force_generic_plan AS $$
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
  INSERT INTO "v6".budget_windows (scope_key, window_key, start_at, end_at)
  SELECT w.base, w.key, to_timestamp(w.starts / 1000.0), to_timestamp(w.ends / 1000.0)
  FROM unnest(base_keys, keys, window_starts, window_ends) AS w(base, key, starts, ends)
  WHERE w.ends >= 0
  ON CONFLICT (scope_key, window_key) DO NOTHING;
  gone := ARRAY(
    SELECT w.window_key FROM "v6".budget_windows AS w
    WHERE w.scope_key = ANY(base_keys) AND w.end_at < now() - interval '3024000000 milliseconds'
      AND NOT EXISTS (SELECT 1 FROM "v6".budget_leases AS l WHERE l.scope_key = w.window_key)
    ORDER BY w.window_key LIMIT 100 FOR UPDATE SKIP LOCKED);
  IF cardinality(gone) > 0 THEN
    DELETE FROM "v6".budget_unsettled WHERE scope_key = ANY(gone);
    DELETE FROM "v6".budget_scopes WHERE scope_key = ANY(gone);
    DELETE FROM "v6".budget_scope_shards WHERE scope_key = ANY(gone);
    DELETE FROM "v6".budget_thresholds WHERE scope_key = ANY(gone);
    DELETE FROM "v6".budget_windows WHERE window_key = ANY(gone);
  END IF;
  SELECT a.granted, a.reason, a.scope_index, a.spent, a.reserved, a.in_flight, a.unsettled, a.unsettled_calls
  INTO granted, reason, scope_index, spent, reserved, in_flight, unsettled, unsettled_calls
  FROM "v6".budget_acquire(keys, limits, max_in_flight, amount, lease, ttl_ms, retention_ms, timeout_ms) AS a;
END
$$;

-- The functions of versions 1 and 2 (before statementTimeoutMs), kept for processes not yet upgraded:
-- pinned as well.
DO $$
BEGIN
  IF to_regprocedure('"v6".budget_acquire(text[], bigint[], integer[], bigint, text, bigint, bigint)') IS NOT NULL THEN
    ALTER FUNCTION "v6".budget_acquire(text[], bigint[], integer[], bigint, text, bigint, bigint) SET search_path = pg_catalog, pg_temp;
  END IF;
  IF to_regprocedure('"v6".budget_settle(text, text[], bigint, boolean, boolean, bigint, boolean)') IS NOT NULL THEN
    ALTER FUNCTION "v6".budget_settle(text, text[], bigint, boolean, boolean, bigint, boolean) SET search_path = pg_catalog, pg_temp;
  END IF;
  IF to_regprocedure('"v6".budget_counters(text[], bigint)') IS NOT NULL THEN
    ALTER FUNCTION "v6".budget_counters(text[], bigint) SET search_path = pg_catalog, pg_temp;
  END IF;
END
$$;

COMMENT ON FUNCTION "v6".budget_settle(text, text[], bigint, boolean, boolean, bigint, boolean, bigint) IS 'switchboard budget functions 6';
