import { type Emulator, type EmulatorOptions, startEmulator } from '@switchboard/emulator';
import { afterEach } from 'vitest';

/**
 * Emulators for the current test file, each requiring `key`, all closed after
 * each test: returns the function that starts one.
 */
export function emulatorsWithKey(key: string): (options?: EmulatorOptions) => Promise<Emulator> {
  const running: Emulator[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((emulator) => emulator.close()));
  });
  return async (options = {}) => {
    const emulator = await startEmulator({ key, ...options });
    running.push(emulator);
    return emulator;
  };
}
