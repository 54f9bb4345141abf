/** The names a journal's schema is given as: an identifier PostgreSQL takes unquoted, 1 to 63 characters. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** The schema, checked (a TypeError naming the option and what it takes). */
export function journalSchema(schema: unknown): string {
  if (schema === undefined) return 'switchboard';
  if (typeof schema !== 'string' || !SCHEMA_NAME.test(schema))
    throw new TypeError(
      `schema: expected a lower-case PostgreSQL name (letters, digits, _; at most 63), got ${JSON.stringify(schema)}`,
    );
  return schema;
}

/** Resolves every name in PostgreSQL's catalog, whatever the session's search_path (for this transaction). */
export const PIN_SEARCH_PATH = "SELECT pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true)";

/** The journal's table: one row per call, its journal line as written (`line`), keyed by `call_id`. */
export function migrateSql(schema: string): string[] {
  return [
    `SELECT pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('switchboard journal ${schema}'))`,
    `CREATE SCHEMA IF NOT EXISTS ${schema}`,
    `CREATE TABLE IF NOT EXISTS ${schema}.journal (
  id bigint GENERATED ALWAYS AS IDENTITY,
  call_id text NOT NULL PRIMARY KEY,
  at timestamptz,
  host text NOT NULL,
  pid integer,
  seq bigint,
  line json NOT NULL
)`,
    `CREATE INDEX IF NOT EXISTS journal_id ON ${schema}.journal (id)`,
    `CREATE INDEX IF NOT EXISTS journal_at ON ${schema}.journal (at)`,
  ];
}

/**
 * One batch of rows, each its columns as parallel arrays; a call already there is left as it is. (The
 * many-array `unnest` is FROM-clause syntax, unqualified; the pinned search_path resolves it in the catalog.)
 */
export function insertSql(schema: string): string {
  return `INSERT INTO ${schema}.journal (call_id, at, host, pid, seq, line)
SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::integer[], $5::bigint[], $6::json[])
ON CONFLICT (call_id) DO NOTHING`;
}

/** The next rows after `id` $1, in the order they were written, as their lines' text. */
export function readSql(schema: string): string {
  return `SELECT id, line::text AS line FROM ${schema}.journal WHERE id > $1 ORDER BY id LIMIT $2`;
}

/**
 * Who other than the current user could change what a journal's rows hold: the owner of the schema
 * or of its objects, a role that may create objects in it or add triggers to its tables, and the
 * owner of a trigger's function — each unless it is the current user, a superuser, or (for a user
 * that is not one) a role the current user is a member of; PUBLIC never is. The same rule as the
 * budget's PostgreSQL store. Rows: `what`, `object`, `role`.
 */
export const UNTRUSTED_ROLES_SQL = `SELECT f.what, f.object, CASE WHEN f.role = 0 THEN 'PUBLIC' ELSE pg_catalog.pg_get_userbyid(f.role) END AS role
FROM (
  SELECT 'owns' AS what, 'schema ' || n.nspname AS object, n.nspowner AS role
    FROM pg_catalog.pg_namespace AS n WHERE n.nspname = $1
  UNION ALL SELECT 'may create objects in', 'schema ' || n.nspname, a.grantee
    FROM pg_catalog.pg_namespace AS n, pg_catalog.aclexplode(n.nspacl) AS a
    WHERE n.nspname = $1 AND a.privilege_type = 'CREATE'
  UNION ALL SELECT 'owns', 'relation ' || n.nspname || '.' || c.relname, c.relowner
    FROM pg_catalog.pg_class AS c JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace WHERE n.nspname = $1
  UNION ALL SELECT 'may add triggers to', 'table ' || n.nspname || '.' || c.relname, a.grantee
    FROM pg_catalog.pg_class AS c JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace,
      pg_catalog.aclexplode(c.relacl) AS a
    WHERE n.nspname = $1 AND a.privilege_type = 'TRIGGER'
  UNION ALL SELECT 'owns the function of', 'trigger ' || t.tgname || ' on ' || n.nspname || '.' || c.relname, p.proowner
    FROM pg_catalog.pg_trigger AS t JOIN pg_catalog.pg_class AS c ON c.oid = t.tgrelid
      JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace JOIN pg_catalog.pg_proc AS p ON p.oid = t.tgfoid
    WHERE n.nspname = $1 AND NOT t.tgisinternal
) AS f
WHERE f.role = 0 OR NOT (
  f.role = (SELECT r.oid FROM pg_catalog.pg_roles AS r WHERE r.rolname = current_user)
  OR (SELECT r.rolsuper FROM pg_catalog.pg_roles AS r WHERE r.oid = f.role)
  OR (NOT (SELECT r.rolsuper FROM pg_catalog.pg_roles AS r WHERE r.rolname = current_user)
      AND pg_catalog.pg_has_role(current_user, f.role, 'MEMBER'))
)
ORDER BY f.object, f.what
LIMIT 6`;

/** The refusal for the rows of {@link UNTRUSTED_ROLES_SQL}, or null when there are none. */
export function untrustedText(schema: string, rows: readonly Record<string, unknown>[]): string | null {
  if (rows.length === 0) return null;
  const listed = rows
    .slice(0, 5)
    .map(
      (row) =>
        `${row.role === 'PUBLIC' ? 'every role (PUBLIC)' : `role "${String(row.role)}"`} ${String(row.what)} ${String(row.object)}`,
    );
  return `the journal's schema "${schema}" is not the current user's alone: ${listed.join('; ')}${rows.length > 5 ? ', and more' : ''}. Such a role could change or remove the journal's rows, or run its own code as this user through a trigger: make the current user (or a role it is a member of) the owner of the schema and its objects and revoke CREATE and TRIGGER from the others, or use another schema; see docs/journal-and-report.md (A journal in PostgreSQL)`;
}
