import { RecentMap } from './recent-map.js';
import { type Chain, extend } from './scope-chain.js';
import type { ScopeLimits } from './scope-limits.js';

/** The limits every tenant's scope gets (`BudgetOptions.tenants`): a scope's, without its name. */
export type TenantLimits = Omit<ScopeLimits, 'name'>;

/** How many (role, tenant) chains a budget keeps made; an idle tenant's is made again when it calls. */
const CHAINS_KEPT = 1000;

/**
 * The tenants of a budget: a call that carries a tenant also reserves in `<scope>/<tenant>`, a scope
 * made on its first use with the `tenants` template's limits and window. Its figures live in the
 * store; this process keeps only the chains of its latest tenants, so its memory stays bounded
 * however many tenants it serves.
 */
export class Tenants {
  readonly #template: TenantLimits;
  readonly #roles: ReadonlySet<string>;
  readonly #chains = new RecentMap<Chain>(CHAINS_KEPT);

  constructor(template: TenantLimits, roles: ReadonlySet<string>) {
    this.#template = template;
    this.#roles = roles;
  }

  /**
   * `chain` (the budget's, or its role's) with the tenant's scope, a child of `base` (the budget's own
   * scope), appended. Throws a TypeError naming the tenant when it is not a scope name, or a role's.
   */
  chainOf(base: Chain, chain: Chain, role: string | null, tenant: string): Chain {
    const key = `${role ?? ''}\u0000${tenant}`;
    const known = this.#chains.get(key);
    if (known !== undefined) return known;
    if (this.#roles.has(tenant)) {
      throw new TypeError(
        `tenant "${tenant}" is also the name of a role of this budget (roles.${tenant}): their scopes <scope>/${tenant} would be one; give tenants ids no role has`,
      );
    }
    const own = extend(base, { ...this.#template, name: tenant }, 'tenant');
    const last = own.scopes.length - 1;
    const made: Chain = {
      paths: [...chain.paths, own.paths[last] as string],
      scopes: [...chain.scopes, own.scopes[last] as Chain['scopes'][number]],
      limits: [...chain.limits, own.limits[last] as ScopeLimits],
      windows: [...chain.windows, own.windows[last] ?? null],
      charged: Object.freeze([...chain.charged, own.charged[last] as Chain['charged'][number]]),
    };
    this.#chains.set(key, made);
    return made;
  }
}

/** Checks `tenants` (its keys and limits, as a scope's; TypeError or RangeError naming it); null when not given. */
export function checkTenants(value: unknown): TenantLimits | null {
  if (value === undefined) return null;
  if (value === null || typeof value !== 'object') {
    throw new TypeError('tenants must be an object: { limitUsd?, maxInFlight?, window? }');
  }
  if ('name' in value) {
    throw new TypeError("tenants takes no name: each tenant's scope is named by the tenant's id");
  }
  // Checked as a scope's limits at once, not at a tenant's first call.
  extend(
    { paths: [], scopes: [], limits: [], windows: [], charged: [] },
    { ...value, name: 'tenant' },
    'tenants',
  );
  return value as TenantLimits;
}
