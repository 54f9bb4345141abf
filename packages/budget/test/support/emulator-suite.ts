import { type Emulator, startEmulator } from '@switchboard/emulator';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { StoreFactory } from './store-factories.js';

/**
 * For a suite on one store factory: the factory set up and an emulator started (with `key`)
 * before its tests, the emulator's records cleared before each, both torn down after.
 * Read `emulator` inside the tests.
 */
export function emulatorSuite(factory: StoreFactory, key: string): { readonly emulator: Emulator } {
  let emulator: Emulator | undefined;
  beforeAll(async () => {
    await factory.setUp();
    emulator = await startEmulator({ key });
  });
  beforeEach(() => emulator?.reset());
  afterAll(async () => {
    await emulator?.close();
    await factory.tearDown();
  });
  return {
    get emulator(): Emulator {
      if (emulator === undefined) throw new Error('the emulator is not started yet');
      return emulator;
    },
  };
}
