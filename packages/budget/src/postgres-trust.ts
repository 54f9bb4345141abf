// Who else could change what the budget runs: the budget's functions run with the rights of the user
// that calls them (SECURITY INVOKER), so a role that owns the schema or one of its objects, that may
// create objects in it, or that may add triggers to its tables could run its own code as that user, or
// rewrite the functions that keep the ledger. migrate() refuses such a schema (a configuration error).

type Query = (text: string, values?: readonly unknown[]) => Promise<Record<string, unknown>[]>;

/**
 * The schema's problems, one row each: `what` (`owns`, `may create objects in`, …), `object`, `role`.
 * A role is trusted when it is the current user, a superuser, or (for a user that is not a superuser) a
 * role the current user is a member of (a group that owns the ledger for several users); PUBLIC never is.
 * Run with the search_path pinned to pg_catalog; everything is named with it anyway.
 */
const UNTRUSTED_SQL = `WITH me AS (
  SELECT r.oid, r.rolsuper FROM pg_catalog.pg_roles AS r WHERE r.rolname = current_user
), ns AS (
  SELECT n.oid, n.nspname, n.nspowner, n.nspacl FROM pg_catalog.pg_namespace AS n WHERE n.nspname = $1
), found AS (
  SELECT 'owns' AS what, 'schema ' || pg_catalog.quote_ident(ns.nspname) AS object, ns.nspowner AS role FROM ns
  UNION ALL
  SELECT 'may create objects in', 'schema ' || pg_catalog.quote_ident(ns.nspname), acl.grantee
  FROM ns, LATERAL pg_catalog.aclexplode(ns.nspacl) AS acl WHERE acl.privilege_type = 'CREATE'
  UNION ALL
  SELECT 'owns', CASE c.relkind WHEN 'r' THEN 'table ' WHEN 'i' THEN 'index ' WHEN 'S' THEN 'sequence '
    WHEN 'v' THEN 'view ' ELSE 'relation ' END || pg_catalog.quote_ident(ns.nspname) || '.' || pg_catalog.quote_ident(c.relname),
    c.relowner
  FROM pg_catalog.pg_class AS c JOIN ns ON c.relnamespace = ns.oid
  UNION ALL
  SELECT 'may add triggers to', 'table ' || pg_catalog.quote_ident(ns.nspname) || '.' || pg_catalog.quote_ident(c.relname), acl.grantee
  FROM pg_catalog.pg_class AS c JOIN ns ON c.relnamespace = ns.oid, LATERAL pg_catalog.aclexplode(c.relacl) AS acl
  WHERE acl.privilege_type = 'TRIGGER'
  UNION ALL
  SELECT 'owns', 'function ' || pg_catalog.quote_ident(ns.nspname) || '.' || pg_catalog.quote_ident(p.proname)
    || '(' || pg_catalog.pg_get_function_identity_arguments(p.oid) || ')', p.proowner
  FROM pg_catalog.pg_proc AS p JOIN ns ON p.pronamespace = ns.oid
  UNION ALL
  SELECT 'owns the function of', 'trigger ' || pg_catalog.quote_ident(t.tgname) || ' on table '
    || pg_catalog.quote_ident(ns.nspname) || '.' || pg_catalog.quote_ident(c.relname), p.proowner
  FROM pg_catalog.pg_trigger AS t JOIN pg_catalog.pg_class AS c ON c.oid = t.tgrelid JOIN ns ON c.relnamespace = ns.oid
    JOIN pg_catalog.pg_proc AS p ON p.oid = t.tgfoid
  WHERE NOT t.tgisinternal
)
SELECT found.what, found.object,
  CASE WHEN found.role = 0 THEN 'PUBLIC' ELSE pg_catalog.pg_get_userbyid(found.role) END AS role,
  current_user AS me
FROM found, me
WHERE NOT CASE
  WHEN found.role = 0 THEN false
  WHEN found.role = me.oid THEN true
  WHEN (SELECT r.rolsuper FROM pg_catalog.pg_roles AS r WHERE r.oid = found.role) THEN true
  WHEN me.rolsuper THEN false
  ELSE pg_catalog.pg_has_role(me.oid, found.role, 'MEMBER')
END
ORDER BY found.object, found.what`;

/** The most problems a refusal lists. */
const LISTED = 5;

/**
 * Null when only trusted roles own, may create in, or may add triggers to the schema and its objects
 * (or the schema does not exist yet); else the refusal's text (without the `PostgreSQL at …:` prefix).
 */
export async function untrustedSchema(query: Query, schema: string): Promise<string | null> {
  const rows = await query(UNTRUSTED_SQL, [schema]);
  if (rows.length === 0) return null;
  const me = String(rows[0]?.me);
  const listed = rows
    .slice(0, LISTED)
    .map(
      (row) =>
        `${row.role === 'PUBLIC' ? 'every role (PUBLIC)' : `role "${row.role}"`} ${row.what} ${row.object}`,
    );
  const more = rows.length > LISTED ? `, and ${rows.length - LISTED} more` : '';
  return `the budget's schema "${schema}" is not "${me}"'s alone: ${listed.join('; ')}${more}. The budget's functions run with the rights of the user that calls them, so such a role could run its own code as "${me}" or rewrite the ledger: the store refuses the schema. Make "${me}", a superuser or a role "${me}" is a member of the owner of the schema and its objects, and revoke CREATE (and TRIGGER) from the others (e.g. REVOKE CREATE ON SCHEMA "${schema}" FROM PUBLIC), or use another schema; see docs/budgets-postgres.md (Permissions)`;
}
