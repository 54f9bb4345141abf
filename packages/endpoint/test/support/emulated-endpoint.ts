import type { CallObserver } from '@switchboard/adapter';
import type { Emulator } from '@switchboard/emulator';
import { sharedEmulator } from '@switchboard/test-support';
import {
  type AdapterResolvedChatEndpoint,
  isAdapterResolution,
  resolveChatEndpoint,
  type SwitchboardConfig,
} from '../../src/index.js';

/**
 * One emulator for the enclosing suite (started before its tests, reset before
 * each, closed after), answering for `key`, and `resolveWith`: resolves the
 * endpoint from `config` with the primary's key and address in the environment
 * and `observers` attached, and fails unless the result is an adapter route.
 */
export function emulatedEndpoint(key: string): {
  emulator: () => Emulator;
  resolveWith: (observers: CallObserver[], config?: SwitchboardConfig) => AdapterResolvedChatEndpoint;
} {
  const emulator = sharedEmulator({ key });
  const resolveWith = (observers: CallObserver[], config: SwitchboardConfig = {}) => {
    const resolved = resolveChatEndpoint(config, {
      env: { PRIMARY_API_KEY: key, PRIMARY_BASE_URL: emulator().url },
      observers,
    });
    if (!isAdapterResolution(resolved)) throw new Error(`expected an adapter route, got ${resolved?.rule}`);
    return resolved;
  };
  return { emulator, resolveWith };
}
