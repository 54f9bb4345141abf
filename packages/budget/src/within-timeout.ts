import { checkDurationMs } from './duration-ms.js';
import { checkKnownKeys } from './known-keys.js';

/** The `timeoutMs` of `idle()` or `close()`, checked (Infinity: no limit); `fallback` when not given. */
export function timeoutOf(
  options: { timeoutMs?: number } | undefined,
  method: string,
  fallback: number,
): number {
  if (options !== undefined && (options === null || typeof options !== 'object')) {
    throw new TypeError(`${method}: options must be an object: { timeoutMs? }`);
  }
  checkKnownKeys(options ?? {}, ['timeoutMs'], `${method} options`);
  return checkDurationMs(options?.timeoutMs ?? fallback, `${method}: timeoutMs`, 0, { infinite: true });
}

/** True once `promise` resolved, false when `timeoutMs` passed first (Infinity: waits for it). */
export async function within(promise: Promise<unknown>, timeoutMs: number): Promise<boolean> {
  const done = promise.then(() => true);
  if (timeoutMs === Number.POSITIVE_INFINITY) return done;
  let timer: NodeJS.Timeout | undefined;
  const answer = await Promise.race([
    done,
    new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    }),
  ]);
  clearTimeout(timer);
  return answer;
}
