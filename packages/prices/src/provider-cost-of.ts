type Usage = {
  cost?: unknown;
  is_byok?: unknown;
  cost_details?: { upstream_inference_cost?: unknown } | null;
};

const usd = (value: unknown): number | null =>
  typeof value === 'number' && value >= 0 && value < Infinity ? value : null;

/**
 * The provider's own cost of a call in USD, or null when usage is not an object or
 * holds no finite figure >= 0. The gateway sends `usage.cost`, what it charged, which
 * already includes what the upstream provider charged it: a `usage.cost_details.
 * upstream_inference_cost` beside it is never added to it. A bring-your-own-key call
 * (`usage.is_byok: true`) is billed by the upstream provider to the caller's own key,
 * and `cost` is then only the gateway's fee: its cost is the upstream figure (null
 * when the reply has none). Never throws.
 */
export function providerCostOf(usage: unknown): number | null {
  try {
    const reported = usage as Usage | null;
    if (reported?.is_byok === true) return usd(reported.cost_details?.upstream_inference_cost);
    return usd(reported?.cost);
  } catch {
    // A getter or proxy trap that throws on a hand-made object: no readable cost.
    return null;
  }
}
