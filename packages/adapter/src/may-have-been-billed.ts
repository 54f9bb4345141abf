import { ChatError } from './chat-error.js';

/** Connection errors that prove the request never left this machine or was never accepted. */
const UNSENT_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ERR_INVALID_URL',
  'UND_ERR_INVALID_ARG',
]);

/**
 * Whether a failed attempt may have been billed by the provider (see
 * `AttemptOutcome.mayHaveBeenBilled`). `sent` is false when the transport knows the
 * request was never handed to the network, undefined when it cannot tell.
 */
export function mayHaveBeenBilled(failure: unknown, sent?: boolean): boolean {
  if (sent === false) return false;
  if (!ChatError.isInstance(failure)) return true;
  if (failure.kind === 'budget') return false;
  // The provider answered with an error status: it says the request was not served.
  if (failure.status !== null && failure.status >= 400) return false;
  if (failure.kind === 'connection' && UNSENT_CODES.has(codeOf(failure) ?? '')) return false;
  return true;
}

/** The first `code` along the error's cause chain (the network error under the SDK's wrapping). */
function codeOf(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z_]+$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
