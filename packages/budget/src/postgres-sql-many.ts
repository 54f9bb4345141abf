import { FUNCTION_SETTINGS, SHARDS } from './postgres-sql-hot.js';

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
