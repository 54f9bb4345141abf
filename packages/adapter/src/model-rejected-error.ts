import { ChatError } from './chat-error.js';

/** Options of a {@link ModelRejectedError}. */
export interface ModelRejectedErrorOptions {
  /** The whole message, already free of any key. */
  message: string;
  /** The model id the platform refused. */
  model: string;
  /** The API model names the platform listed in its message. */
  supportedModels: readonly string[];
  /** The underlying error, already free of any key. */
  cause?: unknown;
}

const marker = Symbol.for('switchboard.model-rejected-error');

/**
 * The platform refused the model id with HTTP 400 and listed the API model
 * names it accepts. Callers record this as a degradation.
 */
export class ModelRejectedError extends ChatError {
  override readonly name: string = 'ModelRejectedError';
  /** The model id the platform refused. */
  readonly model: string;
  /** The API model names the platform listed, e.g. `['primary-flash', 'primary-v4-pro']`. */
  readonly supportedModels: readonly string[];

  constructor(options: ModelRejectedErrorOptions) {
    super({ kind: 'model_rejected', status: 400, message: options.message, cause: options.cause });
    Object.defineProperty(this, marker, { value: true });
    this.model = options.model;
    this.supportedModels = Object.freeze([...options.supportedModels]);
  }

  /** True for any `ModelRejectedError`, also one made by another copy of this package. */
  static override isInstance(error: unknown): error is ModelRejectedError {
    return typeof error === 'object' && error !== null && marker in error && error[marker] === true;
  }
}
