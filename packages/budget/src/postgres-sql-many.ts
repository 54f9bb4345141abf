import { FUNCTION_SETTINGS, SHARDS } from './postgres-sql-hot.js';

/**
 * `budget_acquire_many`: the acquisitions of one chain that a process asked for while its previous one was on
 * the server, in one transaction (one round trip, one commit, the root's row locked once for all of them). Each
 * lease is `budget_acquire`'s, in order: granted or refused on its own, seeing the ones before it. A refusal
 * makes `budget_acquire` let its transaction commit without waiting for the disk (it wrote nothing that
 * lasts); here the others may have been granted, so the session's own setting comes back at the end, `'on'`
 * where it was `'off'`: a grant is on disk before it is answered. An error (a lock not granted in time) rolls
 * them all back: each caller is told it, nothing of any of them written.
 */
export function acquireManySql(s: string): string {
  return `-- budget_acquire for each of leases (with amounts[i]) on one chain, in order, in one transaction: a row each.
CREATE OR REPLACE FUNCTION ${s}.budget_acquire_many(keys text[], limits bigint[], max_in_flight integer[],
  amounts bigint[], leases text[], ttl_ms bigint, retention_ms bigint, timeout_ms bigint)
RETURNS TABLE (granted boolean, reason text, scope_index integer, spent bigint[], reserved bigint[],
  in_flight integer[], unsettled bigint[], unsettled_calls integer[])
LANGUAGE plpgsql ${FUNCTION_SETTINGS} AS $$
DECLARE
  asked text := current_setting('synchronous_commit');
  any_granted boolean := false;
  ignored text;
BEGIN
  FOR i IN 1..cardinality(leases) LOOP
    SELECT a.granted, a.reason, a.scope_index, a.spent, a.reserved, a.in_flight, a.unsettled, a.unsettled_calls
    INTO granted, reason, scope_index, spent, reserved, in_flight, unsettled, unsettled_calls
    FROM ${s}.budget_acquire(keys, limits, max_in_flight, amounts[i], leases[i], ttl_ms, retention_ms, timeout_ms) AS a;
    any_granted := any_granted OR granted;
    RETURN NEXT;
  END LOOP;
  IF any_granted THEN
    ignored := set_config('synchronous_commit', CASE WHEN asked = 'off' THEN 'on' ELSE asked END, true);
  END IF;
END
$$;
`;
}

/**
 * `budget_settle_many`: the settlements of one chain that a process asked for while its previous one was on the
 * server, in one transaction. Each is `budget_settle`'s, run in the order of their shard rows (then as asked), so
 * two such transactions take the shard rows in one order, (shard, key), and never deadlock on them; the answers
 * come back in the order asked. An error rolls them all back: each caller is told it.
 */
export function settleManySql(s: string): string {
  return `-- budget_settle for each of leases (with actuals[i], is_unsettled[i], leased[i]) on one chain, in one
-- transaction, in the order of their shard rows: a row each (held), in the order asked.
CREATE OR REPLACE FUNCTION ${s}.budget_settle_many(leases text[], keys text[], actuals bigint[],
  is_unsettled boolean[], leased boolean[], retention_ms bigint, durable boolean, timeout_ms bigint)
RETURNS TABLE (held boolean)
LANGUAGE plpgsql ${FUNCTION_SETTINGS} AS $$
DECLARE
  answers boolean[] := array_fill(NULL::boolean, ARRAY[cardinality(leases)]);
  at integer;
BEGIN
  FOR at IN SELECT l.position::integer FROM unnest(leases) WITH ORDINALITY AS l(id, position)
    ORDER BY hashtext(l.id) & ${SHARDS - 1}, l.position LOOP
    answers[at] := ${s}.budget_settle(leases[at], keys, actuals[at], is_unsettled[at], leased[at], retention_ms,
      durable, timeout_ms);
  END LOOP;
  RETURN QUERY SELECT a.answer FROM unnest(answers) WITH ORDINALITY AS a(answer, position) ORDER BY a.position;
END
$$;
`;
}
