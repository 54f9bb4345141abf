export type { BudgetOptions, ScopeUsage } from './budget.js';
export { Budget, createBudget } from './budget.js';
export type { BudgetErrorDetails, BudgetRefusal } from './budget-error.js';
export { BudgetError } from './budget-error.js';
export type {
  AcquireRequest,
  AcquireResult,
  BudgetStore,
  ScopeCounters,
  Settlement,
} from './budget-store.js';
export { MemoryBudgetStore } from './memory-store.js';
export { NANO_USD_PER_USD } from './nano-usd.js';
export {
  promptTokenBound,
  TEMPLATE_TOKENS_PER_MESSAGE,
  TEMPLATE_TOKENS_PER_REQUEST,
} from './prompt-token-bound.js';
export type { RedisBudgetStoreOptions } from './redis-store.js';
export { RedisBudgetStore } from './redis-store.js';
export type { ScopeLimits, StoredScope } from './scope-limits.js';
export type { WorstCasePricing } from './worst-case-cost.js';
export { worstCaseCostUsd } from './worst-case-cost.js';
