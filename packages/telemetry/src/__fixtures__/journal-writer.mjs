// Run by call-journal.writers.test.ts as one of several writer processes on one
// journal: writes COUNT lines tagged with WRITER (role) and their number (attempts),
// closing the journal at the end ("natural": just ending). With "kill", says "ready" and waits to be killed
// while writing without end.
import { CallJournal } from '../../dist/index.js';

const [path, writer, count, mode] = process.argv.slice(2);
const journal = new CallJournal(path, { highWaterMark: 512 });
const record = (call) => ({
  model: 'primary-flash',
  usage: { prompt_tokens: 1200, completion_tokens: 300 },
  costUsd: 0.00021,
  costNanoUsd: 210000,
  pricedAs: 'primary-flash',
  priceSource: 'table',
  tariff: null,
  at: new Date(Date.UTC(2026, 10, 23, 8, 0, 0, call % 1000)).toISOString(),
  durationMs: call,
  attempts: 1,
  role: writer,
  error: null,
});
if (mode === 'kill') {
  process.stdout.write('ready\n');
  let call = 0;
  const more = () => {
    for (let i = 0; i < 500; i++) journal.afterCall(record(call++));
    journal.flushSync();
    setImmediate(more);
  };
  more();
} else if (mode === 'natural') {
  // Ends without closing the journal: the exit hook writes (or counts and says) what is left.
  for (let call = 0; call < Number(count); call++) journal.afterCall(record(call));
} else {
  for (let call = 0; call < Number(count); call++) {
    journal.afterCall(record(call));
    if (call % 97 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  const dropped = await journal.close();
  process.stdout.write(`${JSON.stringify({ lines: journal.lines, dropped })}\n`);
}
