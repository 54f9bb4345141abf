/** The API model ids the emulator accepts, as `GET /models` lists them. */
export const SUPPORTED_MODELS: readonly string[] = Object.freeze(['primary-flash', 'primary-v4-pro']);

/** The model an alias maps to: the platform maps `primary-chat` to the default model. */
export const DEFAULT_MODEL = 'primary-flash';

const ALIASES: ReadonlyMap<string, string> = new Map([['primary-chat', DEFAULT_MODEL]]);

/** The accepted model id that `model` names (itself or the model an alias maps to), or null. */
export function resolveModelId(model: string): string | null {
  if (SUPPORTED_MODELS.includes(model)) return model;
  return ALIASES.get(model) ?? null;
}
