import { listModels } from '../chat/list-models.js';
import { basePathOf, type EmulatorFlavor } from '../gateway/emulator-flavor.js';
import { apiError, invalidField } from './api-error.js';
import type { ParsedBody } from './read-body.js';
import type { RouteResult } from './route-result.js';

/** A chat request that passed routing: its parsed body still needs validating. */
export interface ChatRoute {
  readonly route: 'chat';
  readonly body: unknown;
}

/**
 * Routes a request by method and path: `POST /chat/completions` (returned as a
 * {@link ChatRoute}) and `GET /models`, at the unversioned root for the primary
 * flavour, under `/api/v1` for the gateway. On the primary flavour a `/v1` path
 * is a 404 telling the client to drop it; another path is a
 * 404, another method a 405; a chat body that is empty or not JSON is a 400,
 * one past the size cap a 413.
 */
export function routeRequest(
  method: string,
  pathname: string,
  body: ParsedBody,
  flavor: EmulatorFlavor = 'primary',
): RouteResult | ChatRoute {
  if (body.kind === 'too-large') {
    return apiError(413, `Payload Too Large: the request body is larger than ${body.limit} bytes`, {
      code: 'request_too_large',
      headers: { connection: 'close' },
    });
  }
  const base = basePathOf(flavor);
  if (base !== '') {
    if (!pathname.startsWith(`${base}/`)) {
      return apiError(404, `Not Found: '${pathname}' does not exist. The API lives under ${base}.`, {
        code: 'not_found',
      });
    }
    return routeUnder(method, pathname, pathname.slice(base.length), body, flavor);
  }
  if (pathname === '/v1' || pathname.startsWith('/v1/')) {
    return apiError(
      404,
      `Not Found: '${pathname}' does not exist. The API is unversioned: use the base URL without /v1.`,
      { code: 'not_found' },
    );
  }
  return routeUnder(method, pathname, pathname, body, flavor);
}

function routeUnder(
  method: string,
  pathname: string,
  route: string,
  body: Exclude<ParsedBody, { kind: 'too-large' }>,
  flavor: EmulatorFlavor,
): RouteResult | ChatRoute {
  if (route === '/models') {
    if (method !== 'GET') return methodNotAllowed(method, pathname, 'GET');
    return { status: 200, body: listModels(flavor) };
  }
  if (route === '/chat/completions') {
    if (method !== 'POST') return methodNotAllowed(method, pathname, 'POST');
    if (body.kind === 'empty')
      return invalidField('body', 'The request body is empty: expected a JSON object');
    if (body.kind === 'malformed') {
      return invalidField('body', `The request body is not valid JSON: ${body.problem}`);
    }
    return { route: 'chat', body: body.value };
  }
  return apiError(404, `Not Found: '${pathname}' does not exist.`, { code: 'not_found' });
}

function methodNotAllowed(method: string, pathname: string, allowed: string): RouteResult {
  return apiError(405, `Method Not Allowed: ${method} ${pathname} (use ${allowed})`, {
    code: 'method_not_allowed',
    headers: { allow: allowed },
  });
}
