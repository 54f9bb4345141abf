import { type Emulator, type EmulatorOptions, startEmulator } from '@switchboard/emulator';
import { afterAll, beforeAll, beforeEach } from 'vitest';

/** How a file's shared emulator is kept between its tests. */
export interface SharedEmulatorOptions {
  /**
   * Reset it before each test (the default): recorded requests, the prefix cache
   * and the fault plan start afresh. Turn off when `options.faults` must hold
   * for the whole file.
   */
  readonly resetBeforeEach?: boolean;
}

/**
 * One emulator for the whole file: started before all tests, reset before each
 * (unless `resetBeforeEach: false`) and closed after all. Call it at the top
 * level of a test file; the returned function gives the emulator.
 */
export function sharedEmulator(
  options: EmulatorOptions = {},
  { resetBeforeEach = true }: SharedEmulatorOptions = {},
): () => Emulator {
  let emulator: Emulator | undefined;

  beforeAll(async () => {
    emulator = await startEmulator(options);
  });

  afterAll(async () => {
    await emulator?.close();
  });

  if (resetBeforeEach) {
    beforeEach(() => {
      emulator?.reset();
    });
  }

  return () => {
    if (emulator === undefined) throw new Error('the shared emulator is not started yet');
    return emulator;
  };
}
