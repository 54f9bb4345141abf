// Runs one client's calls back to back against the emulator (in its own process),
// for `node --cpu-prof`: the profile then holds the client's side only.
//
// Usage: pnpm --filter @switchboard/bench bench:profile <client> [calls] [concurrency] [small|large]
// (the profiles go to bench/results/profiles/; the client's is the one naming src/measure.ts).
import { CLIENT_IDS, type ClientId, createClients } from './clients.js';
import { startEmulatorProcess } from './emulator-client.js';
import { runBatch } from './measure.js';

const [id = 'adapter', calls = '4000', concurrency = '1', size = 'small'] = process.argv.slice(2);
if (!CLIENT_IDS.includes(id as ClientId)) throw new Error(`client must be one of ${CLIENT_IDS.join(', ')}`);
const emulator = await startEmulatorProcess();
const [client] = await createClients(size === 'large' ? emulator.largeUrl : emulator.smallUrl, [
  id as ClientId,
]);
if (!client) throw new Error(`no client ${id}`);
try {
  await runBatch(client, 200, Number(concurrency));
  const batch = await runBatch(client, Number(calls), Number(concurrency));
  console.log(
    `${id}: ${(batch.cpuMicros / Number(calls)) | 0} µs CPU per call, ${(batch.wallMs / Number(calls)).toFixed(3)} ms wall`,
  );
} finally {
  await emulator.close();
  await client.close?.();
}
