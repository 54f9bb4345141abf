import { SUPPORTED_MODELS } from './models.js';

/** The body of `GET /models`: the accepted API model ids in OpenAI's list shape (spec 4.3). */
export function listModels(): Record<string, unknown> {
  return {
    object: 'list',
    data: SUPPORTED_MODELS.map((id) => ({ id, object: 'model', owned_by: 'primary' })),
  };
}
