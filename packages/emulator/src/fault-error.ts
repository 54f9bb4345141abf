import { STATUS_CODES } from 'node:http';
import { apiError } from './api-error.js';
import type { FaultRule } from './fault-rule.js';
import type { RouteResult } from './route-result.js';

const DEFAULTS: Readonly<Record<number, { message: string; type: string; code: string }>> = {
  429: {
    message: 'Rate limit reached for requests. Please retry after a short wait.',
    type: 'rate_limit_error',
    code: 'rate_limit_exceeded',
  },
  500: {
    message: 'The server had an error while processing your request.',
    type: 'server_error',
    code: 'internal_error',
  },
  503: {
    message: 'The server is overloaded. Please try again later.',
    type: 'server_error',
    code: 'service_unavailable',
  },
};

/** The `retry-after` / `retry-after-ms` headers a fault rule asks for. */
export function retryHeaders(rule: FaultRule): Record<string, string> {
  const headers: Record<string, string> = {};
  if (rule.retryAfter !== undefined) headers['retry-after'] = String(rule.retryAfter);
  if (rule.retryAfterMs !== undefined) headers['retry-after-ms'] = String(rule.retryAfterMs);
  return headers;
}

/** The JSON error answer of a fault rule with a `status`. */
export function faultError(rule: FaultRule & { status: number }): RouteResult {
  const known = DEFAULTS[rule.status];
  const fallback = {
    message: `${rule.status} ${STATUS_CODES[rule.status] ?? 'Error'}`,
    type: rule.status >= 500 ? 'server_error' : 'invalid_request_error',
    code: (STATUS_CODES[rule.status] ?? 'error').toLowerCase().replaceAll(/\W+/g, '_'),
  };
  const details = known ?? fallback;
  return apiError(rule.status, rule.message ?? details.message, {
    type: details.type,
    code: details.code,
    headers: retryHeaders(rule),
  });
}
