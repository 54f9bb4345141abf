/**
 * The provider's own cost of a call, `usage.cost` in USD (the gateway sends it),
 * or null when usage is not an object or `cost` is not a finite number >= 0.
 * Never throws.
 */
export function providerCostOf(usage: unknown): number | null {
  try {
    const cost = (usage as { cost?: unknown } | null)?.cost;
    return typeof cost === 'number' && cost >= 0 && cost < Infinity ? cost : null;
  } catch {
    // A getter or proxy trap that throws on a hand-made object: no readable cost.
    return null;
  }
}
