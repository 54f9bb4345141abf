import { apiError } from '../http/api-error.js';
import type { RouteResult } from '../http/route-result.js';
import { SUPPORTED_MODELS } from './models.js';

/** The wordings the platform has used for a model id it does not accept. */
export type ModelRejectionWording = 'listing' | 'but-you-passed' | 'not-exist';

/**
 * The 400 the platform answers for a model id it does not accept, in one of
 * the wordings it has used: `listing` (code `model_not_found`),
 * `but-you-passed` and `not-exist` (code `invalid_request_error`, so a client
 * must read the message).
 */
export function modelRejection(model: string, wording: ModelRejectionWording = 'listing'): RouteResult {
  if (wording === 'not-exist') return apiError(400, 'Model Not Exist', { param: 'model' });
  if (wording === 'but-you-passed') {
    return apiError(
      400,
      `The supported API model names are ${SUPPORTED_MODELS.join(' or ')}, but you passed ${model}.`,
      { param: 'model' },
    );
  }
  return apiError(
    400,
    `Model '${model}' is not supported. Supported API model names: ${SUPPORTED_MODELS.join(', ')}`,
    { param: 'model', code: 'model_not_found' },
  );
}
