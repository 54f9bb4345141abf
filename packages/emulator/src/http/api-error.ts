import type { RouteResult } from './route-result.js';

/** The fields of an error body beside its message. */
export interface ApiErrorDetails {
  readonly type?: string;
  readonly param?: string;
  readonly code?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * An error response in the platform's shape:
 * `{"error": {"message", "type", "param"?, "code"}}` (`param` only when given).
 */
export function apiError(status: number, message: string, details: ApiErrorDetails = {}): RouteResult {
  const error: Record<string, unknown> = { message, type: details.type ?? 'invalid_request_error' };
  if (details.param !== undefined) error.param = details.param;
  error.code = details.code ?? 'invalid_request_error';
  return { status, body: { error }, ...(details.headers === undefined ? {} : { headers: details.headers }) };
}

/** A 400 naming a bad request field and what was expected. */
export function invalidField(param: string, message: string): RouteResult {
  return apiError(400, message, { param });
}
