/**
 * The longest tenant id, in UTF-16 code units: a budget makes a scope `<root>/<tenant>` of it, and
 * a scope's name is at most 256 of them.
 */
const MAX_TENANT_LENGTH = 256;

// No control character and no '{', '}' or '/': the id becomes a budget scope's name, where braces
// mark a Redis Cluster hash tag and a slash nests a scope.
const TENANT_CHARACTERS = /^[^{}/\p{Cc}]+$/u;
// In a `u` pattern a surrogate pair is one code point: only an unpaired half matches.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * Checks a tenant id (`field` names it in the error): a non-empty string of at most
 * 256 UTF-16 code units, well-formed Unicode, without control characters,
 * `{`, `}` or `/`, and not only white space. Throws a TypeError saying which rule it broke.
 */
export function checkTenant(tenant: unknown, field: string): string {
  if (typeof tenant !== 'string') throw new TypeError(`${field} must be a string, got ${typeof tenant}`);
  const shown = JSON.stringify(tenant.length > 40 ? `${tenant.slice(0, 40)}…` : tenant);
  if (tenant.trim() === '') throw new TypeError(`${field} must be a non-empty string, got ${shown}`);
  if (tenant.length > MAX_TENANT_LENGTH) {
    throw new TypeError(
      `${field} must be at most ${MAX_TENANT_LENGTH} characters (UTF-16 code units), got ${tenant.length}: ${shown}`,
    );
  }
  if (!TENANT_CHARACTERS.test(tenant)) {
    throw new TypeError(`${field} must not contain '{', '}', '/' or control characters, got ${shown}`);
  }
  if (LONE_SURROGATE.test(tenant)) {
    throw new TypeError(
      `${field} must be well-formed Unicode (no lone surrogate such as \\uD800), got ${shown}`,
    );
  }
  return tenant;
}

/** The request's own tenant, checked, or null when it gives none. */
export function tenantOfRequest(tenant: unknown): string | null {
  return tenant === undefined || tenant === null ? null : checkTenant(tenant, 'request.tenant');
}
