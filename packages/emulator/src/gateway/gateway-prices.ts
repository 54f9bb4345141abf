/** USD per million tokens the gateway charges for one model. */
export interface GatewayPrice {
  readonly cachedPerMillion: number;
  readonly inputPerMillion: number;
  readonly outputPerMillion: number;
}

/**
 * The emulated gateway's price list (USD per million tokens), kept here so the
 * emulator depends on no other package. The figures are the shipped price
 * table's for the same ids (a test holds them equal); `bill()` prices with them too.
 */
export const GATEWAY_PRICES: Readonly<Record<string, GatewayPrice>> = Object.freeze({
  'primary-flash': { cachedPerMillion: 0.014, inputPerMillion: 0.44, outputPerMillion: 1.32 },
  'primary-v4-pro': { cachedPerMillion: 0.044, inputPerMillion: 1.32, outputPerMillion: 3.96 },
});

/** The token counts a gateway reply is charged for. */
export interface GatewayTokens {
  readonly promptTokens: number;
  readonly cachedTokens: number;
  readonly completionTokens: number;
}

/**
 * The `usage.cost` of a gateway reply in USD: `(cached × cachedPerMillion +
 * (prompt − cached) × inputPerMillion + completion × outputPerMillion) / 1e6`,
 * rounded to 12 decimal places; 0 for a model without a price.
 */
export function gatewayCost(model: string, tokens: GatewayTokens): number {
  const price = GATEWAY_PRICES[model];
  if (price === undefined) return 0;
  const micro =
    tokens.cachedTokens * price.cachedPerMillion +
    (tokens.promptTokens - tokens.cachedTokens) * price.inputPerMillion +
    tokens.completionTokens * price.outputPerMillion;
  return Math.round(micro * 1e6) / 1e12;
}
