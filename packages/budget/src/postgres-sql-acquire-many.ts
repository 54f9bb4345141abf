import {
  CHAIN_COUNTERS,
  FUNCTION_SETTINGS,
  HELD_RECORD_MS,
  readShardsSql,
  sweepDue,
} from './postgres-sql-hot.js';

/**
 * `budget_acquire_many` (version 10): the acquisitions of one chain that a process asked for while its previous
 * one was on the server, in one transaction (one round trip, one commit). Versions 8 and 9 ran `budget_acquire` once
 * per lease, so every lease but the first did its own rows' work (record, lease rows, sweep check, shard sums) while
 * the transaction held the root's row: the batches of 7 a fleet makes held the hottest row for 7 acquisitions'
 * work. Now every lease's own rows come first, in bulk; the chain's scope rows are locked last, once, in key
 * order; the checks run in memory, lease by lease in the order asked, each seeing the grants before it (as
 * `budget_acquire` run in that order would); and one statement adds the grants to the locked rows.
 */
export function acquireManySql(s: string): string {
  const readShards = readShardsSql(s);
  return `-- The acquisitions of leases (amounts[i]) on one chain, in order, in one transaction: a row each, as
-- budget_acquire's. First what touches only the leases' own rows: their records (a lease id already recorded is
-- answered as budget_acquire answers it asked twice), a sweep where one is due, their lease rows, the chain's
-- shard sums. Last, in key order, each scope's row locked (made where missing); the checks, in the order spend,
-- reservations, slots, lease by lease in the order asked, each seeing the ones granted before it (read again
-- from the shards, from the first, when one would be refused); one update adds the grants to the locked rows;
-- the refused leases' rows go. A grant is on disk before it is answered: synchronous_commit is 'on' for this
-- transaction when one is granted; when none is, nothing of it lasts and its commit does not wait for the disk.
-- Lease ids given twice in one call: each as budget_acquire, one after the other.
CREATE OR REPLACE FUNCTION ${s}.budget_acquire_many(keys text[], limits bigint[], max_in_flight integer[],
  amounts bigint[], leases text[], ttl_ms bigint, retention_ms bigint, timeout_ms bigint)
RETURNS TABLE (granted boolean, reason text, scope_index integer, spent bigint[], reserved bigint[],
  in_flight integer[], unsettled bigint[], unsettled_calls integer[])
LANGUAGE plpgsql ${FUNCTION_SETTINGS} AS $$
DECLARE
  asked text := current_setting('synchronous_commit');
  ignored text;
  n integer := cardinality(keys);
  m integer := cardinality(leases);
  sorted text[] := ARRAY(SELECT k FROM unnest(keys) AS k ORDER BY k);
  fresh text[];
  is_fresh boolean[];
  refused_ids text[] := '{}';
  reasons text[];
  indexes integer[];
  scope_name text;
  at integer;
  amount bigint;
  granted_amount bigint;
  granted_count integer;
  any_refused boolean;
  record_state text;
  ${CHAIN_COUNTERS}
  total_spent bigint[]; total_reserved bigint[]; total_in_flight integer[]; total_unsettled bigint[]; total_calls integer[];
BEGIN
  IF (SELECT count(DISTINCT l) FROM unnest(leases) AS l) < m THEN
    FOR i IN 1..m LOOP
      SELECT a.granted, a.reason, a.scope_index, a.spent, a.reserved, a.in_flight, a.unsettled, a.unsettled_calls
      INTO granted, reason, scope_index, spent, reserved, in_flight, unsettled, unsettled_calls
      FROM ${s}.budget_acquire(keys, limits, max_in_flight, amounts[i], leases[i], ttl_ms, retention_ms, timeout_ms) AS a;
      IF granted THEN granted_count := coalesce(granted_count, 0) + 1; END IF;
      RETURN NEXT;
    END LOOP;
    IF granted_count > 0 THEN
      ignored := set_config('synchronous_commit', CASE WHEN asked = 'off' THEN 'on' ELSE asked END, true);
    END IF;
    RETURN;
  END IF;
  ignored := set_config('lock_timeout', timeout_ms || 'ms', true);
  WITH made AS (
    INSERT INTO ${s}.budget_lease_records (lease_id, scope_key, state, reserved_nano_usd, forget_after)
    SELECT l.id, keys[n], 'held', l.amount, now() + interval '${HELD_RECORD_MS} milliseconds'
    FROM unnest(leases, amounts) AS l(id, amount)
    ON CONFLICT (lease_id) DO NOTHING
    RETURNING lease_id
  )
  SELECT coalesce(array_agg(made.lease_id), '{}') INTO fresh FROM made;
  is_fresh := ARRAY(SELECT l.id = ANY(fresh) FROM unnest(leases) WITH ORDINALITY AS l(id, position) ORDER BY l.position);
  IF cardinality(fresh) > 0 THEN
    IF ${sweepDue(s)} THEN
      PERFORM ${s}.budget_sweep(keys, retention_ms);
    END IF;
    INSERT INTO ${s}.budget_leases (scope_key, lease_id, amount_nano_usd, expires_at)
    SELECT k, l.id, l.amount, now() + ttl_ms * interval '1 millisecond'
    FROM unnest(leases, amounts) AS l(id, amount), unnest(keys) AS k
    WHERE l.id = ANY(fresh);
    ${readShards};
    FOREACH scope_name IN ARRAY sorted LOOP
      -- The row locked; a missing one made first (another transaction making it too: waited for, then locked).
      LOOP
        SELECT scope.spent_nano_usd, scope.reserved_nano_usd, scope.in_flight, scope.unsettled_nano_usd, scope.unsettled_calls
        INTO row_spent, row_reserved, row_in_flight, row_unsettled, row_calls
        FROM ${s}.budget_scopes AS scope WHERE scope.scope_key = scope_name FOR UPDATE;
        EXIT WHEN FOUND;
        INSERT INTO ${s}.budget_scopes (scope_key) VALUES (scope_name) ON CONFLICT (scope_key) DO NOTHING;
      END LOOP;
      at := array_position(keys, scope_name);
      main_spent[at] := row_spent; main_reserved[at] := row_reserved; main_in_flight[at] := row_in_flight;
      main_unsettled[at] := row_unsettled; main_calls[at] := row_calls;
    END LOOP;
    FOR attempt IN 1..2 LOOP
      reasons := array_fill(NULL::text, ARRAY[m]);
      indexes := array_fill(NULL::integer, ARRAY[m]);
      granted_amount := 0; granted_count := 0; any_refused := false;
      FOR i IN 1..m LOOP
        CONTINUE WHEN NOT is_fresh[i];
        amount := amounts[i];
        FOR j IN 1..n LOOP
          IF limits[j] IS NOT NULL AND main_spent[j] + sh_spent[j] + amount > limits[j] THEN
            reasons[i] := 'spend'; indexes[i] := j - 1; EXIT;
          END IF;
        END LOOP;
        IF reasons[i] IS NULL THEN
          FOR j IN 1..n LOOP
            IF limits[j] IS NOT NULL AND main_spent[j] + sh_spent[j] + main_reserved[j] + sh_reserved[j]
              + granted_amount + amount > limits[j] THEN
              reasons[i] := 'reserved'; indexes[i] := j - 1; EXIT;
            END IF;
          END LOOP;
        END IF;
        IF reasons[i] IS NULL THEN
          FOR j IN 1..n LOOP
            IF max_in_flight[j] IS NOT NULL
              AND main_in_flight[j] + sh_in_flight[j] + granted_count >= max_in_flight[j] THEN
              reasons[i] := 'in_flight'; indexes[i] := j - 1; EXIT;
            END IF;
          END LOOP;
        END IF;
        IF reasons[i] IS NULL THEN
          granted_amount := granted_amount + amount; granted_count := granted_count + 1;
        ELSE
          any_refused := true;
        END IF;
      END LOOP;
      EXIT WHEN NOT any_refused OR attempt = 2;
      -- Settlements that committed while this one waited for the rows: seen before any lease is refused.
      ${readShards};
    END LOOP;
    IF granted_count > 0 THEN
      UPDATE ${s}.budget_scopes AS scope SET reserved_nano_usd = scope.reserved_nano_usd + granted_amount,
        in_flight = scope.in_flight + granted_count, updated_at = now()
      WHERE scope.scope_key = ANY(keys);
    END IF;
    IF any_refused THEN
      refused_ids := ARRAY(SELECT l.id FROM unnest(leases, reasons) AS l(id, why) WHERE l.why IS NOT NULL);
      DELETE FROM ${s}.budget_leases AS l WHERE l.lease_id = ANY(refused_ids) AND l.scope_key = ANY(keys);
      DELETE FROM ${s}.budget_lease_records AS r WHERE r.lease_id = ANY(refused_ids);
    END IF;
  END IF;
  -- The answers, in the order asked: each lease's counters as budget_acquire's (after its grant, or as they were
  -- when it was refused); a lease recorded before, the chain's counters after this transaction's grants.
  IF cardinality(fresh) < m THEN
    SELECT t.spent, t.reserved, t.in_flight, t.unsettled, t.unsettled_calls
    INTO total_spent, total_reserved, total_in_flight, total_unsettled, total_calls FROM ${s}.budget_totals(keys) AS t;
  END IF;
  granted_amount := 0; granted_count := 0;
  FOR i IN 1..m LOOP
    IF NOT is_fresh[i] THEN
      SELECT r.state INTO record_state FROM ${s}.budget_lease_records AS r WHERE r.lease_id = leases[i];
      granted := record_state = 'held';
      reason := CASE WHEN granted THEN NULL ELSE 'ended' END;
      scope_index := CASE WHEN granted THEN NULL ELSE 0 END;
      spent := total_spent; reserved := total_reserved; in_flight := total_in_flight;
      unsettled := total_unsettled; unsettled_calls := total_calls;
      RETURN NEXT;
      CONTINUE;
    END IF;
    granted := reasons[i] IS NULL;
    IF granted THEN
      granted_amount := granted_amount + amounts[i]; granted_count := granted_count + 1;
    END IF;
    reason := reasons[i]; scope_index := indexes[i];
    spent := '{}'; reserved := '{}'; in_flight := '{}'; unsettled := '{}'; unsettled_calls := '{}';
    FOR j IN 1..n LOOP
      spent := spent || (main_spent[j] + sh_spent[j]);
      reserved := reserved || (main_reserved[j] + sh_reserved[j] + granted_amount);
      in_flight := in_flight || (main_in_flight[j] + sh_in_flight[j] + granted_count);
      unsettled := unsettled || (main_unsettled[j] + sh_unsettled[j]);
      unsettled_calls := unsettled_calls || (main_calls[j] + sh_calls[j]);
    END LOOP;
    RETURN NEXT;
  END LOOP;
  IF granted_count > 0 THEN
    ignored := set_config('synchronous_commit', CASE WHEN asked = 'off' THEN 'on' ELSE asked END, true);
  ELSIF cardinality(fresh) > 0 THEN
    -- Nothing of this transaction outlives it (a sweep's changes are made again by the next): no wait for the disk.
    ignored := set_config('synchronous_commit', 'off', true);
  END IF;
END
$$;
`;
}
