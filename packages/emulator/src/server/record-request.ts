import type { IncomingMessage } from 'node:http';
import { resolveModelId } from '../chat/models.js';
import { basePathOf, type EmulatorFlavor } from '../gateway/emulator-flavor.js';
import { type ParsedBody, parseBody, readBody } from '../http/read-body.js';
import { redactHeaders } from '../http/recorded-request.js';
import type { EmulatorState } from './emulator-state.js';

/** What the emulator knows of a request once it is recorded. */
export interface RequestFacts {
  readonly number: number;
  readonly method: string;
  /** The path, query string dropped. */
  readonly pathname: string;
  /** The path below the flavour's base path. */
  readonly route: string;
  readonly parsed: ParsedBody;
  /** The body's `model` as sent, or null. */
  readonly model: string | null;
  /** The model as sent and the id it maps to (for fault rules), or none. */
  readonly models: readonly string[];
}

/** Reads a request's body (up to `maxBytes`), numbers it and records it in `state`. */
export async function recordRequest(
  state: EmulatorState,
  request: IncomingMessage,
  options: { readonly maxBytes: number; readonly flavor: EmulatorFlavor },
): Promise<RequestFacts> {
  const body = await readBody(request, options.maxBytes);
  const parsed = parseBody(body);
  const number = ++state.requestCount;
  const target = request.url ?? '/';
  const pathname = target.split('?')[0] ?? '/';
  const method = request.method ?? 'GET';
  state.record(
    {
      number,
      method,
      path: target,
      headers: redactHeaders(request.headers),
      body: parsed.kind === 'json' ? parsed.value : null,
    },
    parsed.kind === 'json' && 'text' in body ? Buffer.byteLength(body.text) : 0,
  );
  const base = basePathOf(options.flavor);
  const route = base !== '' && pathname.startsWith(`${base}/`) ? pathname.slice(base.length) : pathname;
  const model = modelOf(parsed);
  const resolved = model === null ? null : resolveModelId(model);
  const models = model === null ? [] : resolved === null || resolved === model ? [model] : [model, resolved];
  return { number, method, pathname, route, parsed, model, models };
}

function modelOf(parsed: ParsedBody): string | null {
  if (parsed.kind !== 'json') return null;
  const value = parsed.value;
  if (value === null || typeof value !== 'object') return null;
  const model = (value as { model?: unknown }).model;
  return typeof model === 'string' ? model : null;
}
