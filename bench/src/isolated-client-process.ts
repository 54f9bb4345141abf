// One bench client in a process of its own (bench:speed --isolate): the client for small
// answers and the one for ~55 KB answers, nothing else, so what the JIT learns and caches
// in this process is this client's alone, as in a user's process. Started by
// src/isolated-clients.ts with the client's id and the emulator's two addresses; runs the
// batches it is sent over IPC, one at a time, and reports each batch's figures.
import { type ClientId, createClients } from './clients.js';
import { type BatchResult, type Collection, runBatch } from './measure.js';

/** A message from the bench to a client's process. */
export type IsolatedCommand =
  | {
      type: 'batch';
      size: 'small' | 'large';
      calls: number;
      concurrency: number;
      collection: Collection;
    }
  | { type: 'close' };

/** A message from a client's process to the bench. */
export type IsolatedReport =
  | { type: 'ready'; label: string }
  | { type: 'batch'; result: BatchResult }
  | { type: 'failed'; message: string };

const [id, smallUrl, largeUrl] = process.argv.slice(2);
if (id === undefined || smallUrl === undefined || largeUrl === undefined)
  throw new Error('usage: isolated-client-process.ts <client id> <small url> <large url>');

function report(message: IsolatedReport): void {
  process.send?.(message);
}

const [small] = await createClients(smallUrl, [id as ClientId]);
const [large] = await createClients(largeUrl, [id as ClientId]);
if (small === undefined || large === undefined) throw new Error(`no bench client ${id}`);

process.on('message', async (command: IsolatedCommand) => {
  if (command.type === 'close') {
    await small.close?.();
    await large.close?.();
    process.disconnect();
    return;
  }
  try {
    const client = command.size === 'small' ? small : large;
    report({
      type: 'batch',
      result: await runBatch(client, command.calls, command.concurrency, command.collection),
    });
  } catch (error) {
    report({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
  }
});

report({ type: 'ready', label: small.label });
