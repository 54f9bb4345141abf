import { type Emulator, type EmulatorOptions, startEmulator } from '@switchboard/emulator';

const running: Emulator[] = [];

/** Starts an emulator that the next `closeTestEmulators()` closes (call that in afterEach). */
export async function startTestEmulator(options: EmulatorOptions): Promise<Emulator> {
  const emulator = await startEmulator(options);
  running.push(emulator);
  return emulator;
}

/** Closes every emulator `startTestEmulator` started since the last call. */
export async function closeTestEmulators(): Promise<void> {
  await Promise.all(running.splice(0).map((emulator) => emulator.close()));
}
