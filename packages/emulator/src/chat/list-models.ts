import type { EmulatorFlavor } from '../gateway/emulator-flavor.js';
import { GATEWAY_PRICES } from '../gateway/gateway-prices.js';
import { perTokenText } from '../gateway/per-token-price.js';
import { SUPPORTED_MODELS } from './models.js';

/** The vendor prefix the gateway's listing names the primary platform's models by: `primary/primary-flash`. */
const GATEWAY_VENDOR = 'primary';

/**
 * The body of `GET /models`: the accepted API model ids in OpenAI's list shape. The
 * gateway names each model `<vendor>/<id>` and adds its `pricing` in USD per token, as
 * exact decimal strings made from `GATEWAY_PRICES`: `prompt` (input), `completion`
 * (output), `input_cache_read` (cache hits).
 */
export function listModels(flavor: EmulatorFlavor = 'primary'): Record<string, unknown> {
  return {
    object: 'list',
    data: SUPPORTED_MODELS.map((id) => {
      const price = GATEWAY_PRICES[id];
      if (flavor !== 'gateway' || price === undefined) return { id, object: 'model', owned_by: 'primary' };
      return {
        id: `${GATEWAY_VENDOR}/${id}`,
        object: 'model',
        owned_by: GATEWAY_VENDOR,
        pricing: {
          prompt: perTokenText(price.inputPerMillion),
          completion: perTokenText(price.outputPerMillion),
          input_cache_read: perTokenText(price.cachedPerMillion),
        },
      };
    }),
  };
}
