// Bench rows of issue 13: what the journal, the OpenTelemetry observer (no SDK
// registered) and the meter add per call, against the plain adapter's CPU per
// call. Prints markdown; not part of the tests.
//
// Usage (from the root): pnpm --filter @switchboard/bench bench:telemetry [--quick]
import { parseArgs } from 'node:util';
import { startEmulatorProcess } from './emulator-client.js';
import { machineInfo } from './machine.js';
import { runTelemetryOverhead, telemetryMarkdown } from './telemetry-overhead.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((argument) => argument !== '--'),
  options: { quick: { type: 'boolean', default: false } },
});
const quick = values.quick === true;
const machine = machineInfo();
console.log(`machine: ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}`);
const emulator = await startEmulatorProcess();
try {
  const result = await runTelemetryOverhead(emulator.smallUrl, 100_000, quick ? 500 : 2_000, quick ? 2 : 5);
  console.log(`\n${telemetryMarkdown(result)}\n`);
} finally {
  await emulator.close();
}
