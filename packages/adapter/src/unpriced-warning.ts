/** The `code` of the process warning for a model nothing prices. */
export const UNPRICED_MODEL_WARNING = 'SWITCHBOARD_UNPRICED_MODEL';

// Once per model per process: a run of a thousand calls says it once.
const warned = new Set<string>();

/**
 * Warns (a process warning of code `SWITCHBOARD_UNPRICED_MODEL`) that calls on
 * `model` got a reply with usage but no price, so they count 0, and says how to
 * price it. Once per model id per process.
 */
export function warnUnpricedModel(model: string): void {
  const id = model.trim();
  if (warned.has(id)) return;
  warned.add(id);
  const quoted = JSON.stringify(id);
  process.emitWarning(
    `no price for model ${quoted}: its calls count 0 USD. Price it with [prices.${quoted}] in switchboard.toml, or in code with a PriceBook entry (new PriceBook({ ${quoted}: { cacheHitPerM, inputPerM, outputPerM } }), given as priceBook to resolveChatEndpoint or ChatEndpoint)`,
    { code: UNPRICED_MODEL_WARNING },
  );
}
