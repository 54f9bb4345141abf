/**
 * Calls `onRequest` each time an HTTP request starts, until the returned
 * function restores the global `fetch`. The transport's SDK client takes the
 * global `fetch` when it is built, so install this before resolving: each
 * request is then one attempt of the call (its retries included), which the
 * spinner and the timeout message report.
 */
export function countRequests(onRequest: () => void): () => void {
  const original = globalThis.fetch;
  globalThis.fetch = (input, init) => {
    onRequest();
    return original(input, init);
  };
  return () => {
    globalThis.fetch = original;
  };
}
