import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { nextReport } from './child-reports.js';
import type { EmulatorCommand, EmulatorReport } from './emulator-process.js';

/** The emulator process, as the benchmark sees it. */
export interface EmulatorProcess {
  /** Base address of the emulator with default (short) answers. */
  readonly smallUrl: string;
  /** Base address of the emulator with ~50 KB answers. */
  readonly largeUrl: string;
  /** Base address of the emulator with 1,000-token answers (the streaming benchmark). */
  readonly streamUrl: string;
  /** Forgets recorded requests and the prefix cache of both emulators. */
  reset(): Promise<void>;
  /** The JSON bodies both emulators received since the last reset. */
  requests(): Promise<{ small: unknown[]; large: unknown[] }>;
  /** Stops both emulators and waits for the process to end. */
  close(): Promise<void>;
}

/** Starts the emulators in a child process (with this process's loader flags, e.g. tsx). */
export async function startEmulatorProcess(): Promise<EmulatorProcess> {
  const child = fork(fileURLToPath(new URL('./emulator-process.ts', import.meta.url)), {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await nextReport<EmulatorReport, 'ready'>(child, 'ready', 'the emulator process');
  const ask = async <T extends EmulatorReport['type']>(command: EmulatorCommand, answer: T) => {
    const reply = nextReport<EmulatorReport, T>(child, answer, 'the emulator process');
    child.send(command);
    return reply;
  };
  return {
    smallUrl: ready.smallUrl,
    largeUrl: ready.largeUrl,
    streamUrl: ready.streamUrl,
    async reset() {
      await ask({ type: 'reset' }, 'reset');
    },
    async requests() {
      const { small, large } = await ask({ type: 'requests' }, 'requests');
      return { small, large };
    },
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send({ type: 'close' });
      await exited;
    },
  };
}
