import type { EmulatorFlavor } from '../gateway/emulator-flavor.js';
import { GATEWAY_PRICES } from '../gateway/gateway-prices.js';
import { SUPPORTED_MODELS } from './models.js';

/**
 * The body of `GET /models`: the accepted API model ids in OpenAI's list shape
 *; the gateway adds each model's `pricing` in USD per token, as text.
 */
export function listModels(flavor: EmulatorFlavor = 'primary'): Record<string, unknown> {
  return {
    object: 'list',
    data: SUPPORTED_MODELS.map((id) => {
      const price = GATEWAY_PRICES[id];
      if (flavor !== 'gateway' || price === undefined) return { id, object: 'model', owned_by: 'primary' };
      return {
        id,
        object: 'model',
        owned_by: 'primary',
        pricing: {
          prompt: String(price.inputPerMillion / 1e6),
          completion: String(price.outputPerMillion / 1e6),
          input_cache_read: String(price.cachedPerMillion / 1e6),
        },
      };
    }),
  };
}
