import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { EmulatorOptions } from '@switchboard/emulator';

/** An emulator running in a child process. */
export interface EmulatorProcess {
  readonly url: string;
  /** Closes the emulator and waits for its process to end. */
  close(): Promise<void>;
}

const packageRoot = new URL('../../', import.meta.url);

/**
 * Starts the built emulator in a child process of its own, so that what this process measures
 * (its memory, its CPU) is the client's alone. Its fault plan is fixed at start (`options.faults`).
 */
export async function startEmulatorProcess(options: EmulatorOptions): Promise<EmulatorProcess> {
  if (!existsSync(new URL('../emulator/dist/index.js', packageRoot))) {
    throw new Error('packages/emulator/dist/index.js is missing: build the packages first');
  }
  const script = fileURLToPath(new URL('test/reliability/fixtures/emulator-process.mjs', packageRoot));
  const child = spawn(process.execPath, [script, JSON.stringify(options)], {
    cwd: fileURLToPath(packageRoot),
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const line = text.split('\n', 2);
      if (line.length === 2) resolve(line[0] as string);
    });
    child.once('exit', (code, signal) =>
      reject(new Error(`the emulator process ended before it listened (code ${code}, signal ${signal})`)),
    );
  });
  return {
    url,
    close: async () => {
      child.stdin.end();
      await exited;
    },
  };
}
