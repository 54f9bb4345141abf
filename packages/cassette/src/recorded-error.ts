import { ChatError, ModelRejectedError } from '@switchboard/adapter';
import type { RecordedError } from './cassette-entry.js';
import { type SecretRules, scrubString } from './secret-scan.js';

/** A failure as a cassette keeps it: a `ChatError`'s kind, status, message and retry facts, secrets removed. */
export function recordedError(error: unknown, rules: SecretRules): RecordedError {
  if (!ChatError.isInstance(error)) {
    // A transport that fails with something else failed without saying how (as the adapter records it).
    const message = error instanceof Error ? error.message : String(error);
    return { kind: 'connection', status: null, message: scrubString(message, rules), retryable: true };
  }
  const recorded: { -readonly [K in keyof RecordedError]: RecordedError[K] } = {
    kind: error.kind,
    status: error.status,
    message: scrubString(error.message, rules),
    retryable: error.retryable,
  };
  if (error.retryAfterSeconds !== undefined) recorded.retryAfterSeconds = error.retryAfterSeconds;
  if (ModelRejectedError.isInstance(error)) {
    recorded.model = scrubString(error.model, rules);
    recorded.supportedModels = error.supportedModels.map((model) => scrubString(model, rules));
  }
  return recorded;
}

/** The `ChatError` a recorded failure stands for, rebuilt for replay (a `ModelRejectedError` for model_rejected). */
export function replayedError(recorded: RecordedError): ChatError {
  if (recorded.kind === 'model_rejected') {
    return new ModelRejectedError({
      message: recorded.message,
      model: recorded.model ?? '',
      supportedModels: recorded.supportedModels ?? [],
    });
  }
  return new ChatError({
    kind: recorded.kind as ChatError['kind'],
    status: recorded.status,
    message: recorded.message,
    retryable: recorded.retryable,
    ...(recorded.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: recorded.retryAfterSeconds }),
  });
}
