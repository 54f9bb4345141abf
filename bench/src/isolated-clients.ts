import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { nextReport } from './child-reports.js';
import type { ClientId } from './clients.js';
import type { IsolatedCommand, IsolatedReport } from './isolated-client-process.js';
import type { BatchRunner } from './measure.js';

/** The clients, each in a process of its own, by the size of answer they ask for. */
export interface IsolatedClients {
  readonly small: BatchRunner[];
  readonly large: BatchRunner[];
  /** Closes every client and waits for their processes to end. */
  close(): Promise<void>;
}

/**
 * Starts one process per client of `ids` (with this process's flags: tsx, --expose-gc), each
 * holding that client for small and for ~55 KB answers; a batch runs in the client's process,
 * which measures its own wall time and CPU, while this one waits.
 */
export async function startIsolatedClients(
  ids: readonly ClientId[],
  urls: { readonly smallUrl: string; readonly largeUrl: string },
): Promise<IsolatedClients> {
  const script = fileURLToPath(new URL('./isolated-client-process.ts', import.meta.url));
  const children = ids.map((id) => ({
    id,
    child: fork(script, [id, urls.smallUrl, urls.largeUrl], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    }),
  }));
  const started = Promise.all(
    children.map(async ({ id, child }) => {
      const who = `the process of bench client ${id}`;
      const { label } = await nextReport<IsolatedReport, 'ready'>(child, 'ready', who);
      const runner = (size: 'small' | 'large'): BatchRunner => ({
        id,
        label,
        async batch(calls, concurrency, collection) {
          const reply = nextReport<IsolatedReport, 'batch'>(child, 'batch', who);
          child.send({ type: 'batch', size, calls, concurrency, collection } satisfies IsolatedCommand);
          return (await reply).result;
        },
      });
      return { small: runner('small'), large: runner('large') };
    }),
  );
  // One that cannot start stops them all: none is left running behind the error.
  const runners = await started.catch((error: unknown) => {
    for (const { child } of children) child.kill();
    throw error;
  });
  return {
    small: runners.map((runner) => runner.small),
    large: runners.map((runner) => runner.large),
    async close() {
      await Promise.all(
        children.map(({ child }) => {
          if (child.exitCode !== null || !child.connected) return Promise.resolve();
          const exited = new Promise((resolve) => child.once('exit', resolve));
          child.send({ type: 'close' } satisfies IsolatedCommand);
          return exited;
        }),
      );
    },
  };
}
