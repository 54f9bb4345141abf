export { Budget, type BudgetOptions, createBudget, type ScopeUsage } from './budget.js';
export { BudgetError, type BudgetErrorDetails, type BudgetRefusal } from './budget-error.js';
export type { RoleOptions } from './budget-options.js';
export type * from './budget-store.js';
export type { FitMaxTokens } from './fit-max-tokens.js';
export { MemoryBudgetStore } from './memory-store.js';
export { NANO_USD_PER_USD } from './nano-usd.js';
export { PostgresBudgetStore, type PostgresBudgetStoreOptions } from './postgres-store.js';
export {
  promptTokenBound,
  TEMPLATE_TOKENS_PER_MESSAGE,
  TEMPLATE_TOKENS_PER_REQUEST,
} from './prompt-token-bound.js';
export type {
  RedisBudgetStoreClient,
  RedisClusterClient,
  RedisConnectionClient,
} from './redis-budget-store-client.js';
export { RedisBudgetStore, type RedisBudgetStoreOptions } from './redis-store.js';
export type { ScopeLimits, StoredScope } from './scope-limits.js';
export {
  type BudgetScopeListing,
  type ListBudgetScopesOptions,
  listBudgetScopes,
} from './show/scope-listing.js';
export type { BudgetThresholdEvent } from './thresholds.js';
export type { BudgetPeriod, BudgetWindow } from './window-bounds.js';
export { type WorstCasePricing, worstCaseCostUsd } from './worst-case-cost.js';
