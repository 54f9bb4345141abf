import { FUNCTION_SETTINGS } from './postgres-sql-hot.js';

/**
 * `budget_settle_marked`: a settlement and the threshold marks after it in one transaction (one round trip,
 * one commit), for a budget with `onThreshold`. The marks are taken after the settlement's own changes, with
 * the chain's threshold rows locked (in key order) before the spend is read, so of two settlements that
 * together pass a threshold the later sees both. Re-run after a deadlock as the same operation: the
 * settlement counts once (its record), and the marks are read again.
 */
export function settleMarkedSql(s: string): string {
  return `-- budget_settle, then budget_mark_thresholds on the same chain, in one transaction: whether the lease was
-- still held, and per scope the mark before and after, and the spend compared (this settlement's included).
CREATE OR REPLACE FUNCTION ${s}.budget_settle_marked(lease text, keys text[], actual bigint, is_unsettled boolean,
  leased boolean, retention_ms bigint, durable boolean, timeout_ms bigint, asked boolean[], levels bigint[],
  n integer, OUT held boolean, OUT marks_from integer[], OUT marks_to integer[], OUT spent bigint[])
LANGUAGE plpgsql ${FUNCTION_SETTINGS} AS $$
BEGIN
  held := ${s}.budget_settle(lease, keys, actual, is_unsettled, leased, retention_ms, durable, timeout_ms);
  SELECT m.marks_from, m.marks_to, m.spent INTO marks_from, marks_to, spent
  FROM ${s}.budget_mark_thresholds(keys, asked, levels, n, retention_ms, timeout_ms) AS m;
END
$$;
`;
}
