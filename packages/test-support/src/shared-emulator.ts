import { type Emulator, type EmulatorOptions, startEmulator } from '@switchboard/emulator';
import { afterAll, beforeAll, beforeEach } from 'vitest';

/**
 * One emulator for the whole file: started before all tests, reset before each and closed
 * after all. Call it at the top level of a test file; the returned function gives the emulator.
 */
export function sharedEmulator(options: EmulatorOptions): () => Emulator {
  let emulator: Emulator | undefined;

  beforeAll(async () => {
    emulator = await startEmulator(options);
  });

  afterAll(async () => {
    await emulator?.close();
  });

  beforeEach(() => {
    emulator?.reset();
  });

  return () => {
    if (emulator === undefined) throw new Error('the shared emulator is not started yet');
    return emulator;
  };
}
