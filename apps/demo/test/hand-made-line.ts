/**
 * A journal line made by hand, as `switchboard report` reads it: a priced primary-flash call (10 prompt
 * and 5 output tokens, exactly its table cost) of the judge, with `fields` over it.
 */
export function handMadeLine(fields: Record<string, unknown> = {}): string {
  return JSON.stringify({
    v: 1,
    model: 'primary-flash',
    usage: { prompt_tokens: 10, completion_tokens: 5 },
    costUsd: 0.000011,
    costNanoUsd: 11_000,
    pricedAs: 'primary-flash',
    priceSource: 'table',
    priceCheckedAt: '2026-11-22',
    at: '2026-11-25T09:00:00.000Z',
    durationMs: 120,
    attempts: 1,
    role: 'judge',
    error: null,
    outcome: 'ok',
    degradation: false,
    settlement: 'exact',
    ...fields,
  });
}
