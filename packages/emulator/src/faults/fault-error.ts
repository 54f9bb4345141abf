import { STATUS_CODES } from 'node:http';
import { apiError } from '../http/api-error.js';
import type { RouteResult } from '../http/route-result.js';
import type { FaultRule } from './fault-rule.js';

/** The message, type and code of an error body for a status. */
export interface ErrorDefaults {
  readonly message: string;
  readonly type: string;
  readonly code: string;
}

const DEFAULTS: Readonly<Record<number, ErrorDefaults>> = {
  402: {
    message: 'Insufficient Balance: add credits to your account to continue.',
    type: 'invalid_request_error',
    code: 'insufficient_balance',
  },
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

/** The message, type and code an error body for `status` carries by default. */
export function errorDefaults(status: number): ErrorDefaults {
  return (
    DEFAULTS[status] ?? {
      message: `${status} ${STATUS_CODES[status] ?? 'Error'}`,
      type: status >= 500 ? 'server_error' : 'invalid_request_error',
      code: (STATUS_CODES[status] ?? 'error').toLowerCase().replaceAll(/\W+/g, '_'),
    }
  );
}

/** The `retry-after` / `retry-after-ms` headers a fault rule asks for. */
export function retryHeaders(rule: FaultRule): Record<string, string> {
  const headers: Record<string, string> = {};
  if (rule.retryAfter !== undefined) headers['retry-after'] = String(rule.retryAfter);
  if (rule.retryAfterMs !== undefined) headers['retry-after-ms'] = String(rule.retryAfterMs);
  return headers;
}

/** The JSON error answer of a fault rule with a `status`. */
export function faultError(rule: FaultRule & { status: number }): RouteResult {
  const details = errorDefaults(rule.status);
  return apiError(rule.status, rule.message ?? details.message, {
    type: details.type,
    code: details.code,
    headers: retryHeaders(rule),
  });
}
