/** What an `emptyJson` predicate is told about a JSON-mode chat request. */
export interface JsonModeRequest {
  /** The request's number among all requests (as in `Emulator.requests`). */
  readonly number: number;
  /** The 1-based count of valid JSON-mode chat requests, this one included. */
  readonly jsonNumber: number;
  /** The accepted model id (an alias already mapped). */
  readonly model: string;
  /** The parsed request body. */
  readonly body: Readonly<Record<string, unknown>>;
}

/**
 * Which JSON-mode requests come back with empty content, as the platform
 * occasionally does: `true` for all of them; a list or set of
 * `jsonNumber`s (1 = the first JSON-mode request); or a predicate.
 */
export type EmptyJsonSelector =
  | boolean
  | readonly number[]
  | ReadonlySet<number>
  | ((request: JsonModeRequest) => boolean);

/** Whether `selector` picks `request` to come back empty. */
export function selectsEmptyJson(selector: EmptyJsonSelector | undefined, request: JsonModeRequest): boolean {
  if (selector === undefined || selector === false) return false;
  if (selector === true) return true;
  if (typeof selector === 'function') return selector(request);
  if (selector instanceof Set) return selector.has(request.jsonNumber);
  return (selector as readonly number[]).includes(request.jsonNumber);
}
