// Run by call-journal.exit.test.ts in a child process: queues N journal lines,
// says "ready", then waits to be signalled (or, with "natural", just ends).
import { CallJournal } from '../../dist/index.js';

const [path, count, mode, highWaterMark] = process.argv.slice(2);
const journal = new CallJournal(path, {
  endpoint: { provider: 'primary', baseUrl: 'https://api.primary.example', thinking: false },
  highWaterMark: Number(highWaterMark),
  flushIntervalMs: 600_000,
});
if (mode === 'own-handler') process.on('SIGTERM', () => process.exit(7));
for (let call = 0; call < Number(count); call++) {
  journal.afterCall({
    model: 'primary-flash',
    usage: { prompt_tokens: 1200, completion_tokens: 300, prompt_cache_hit_tokens: 1024 },
    costUsd: 0.00021,
    pricedAs: 'primary-flash',
    priceSource: 'table',
    tariff: null,
    at: new Date(Date.UTC(2026, 10, 23, 8, 0, 0, call)).toISOString(),
    durationMs: call,
    attempts: 1,
    role: 'judge',
    error: null,
  });
}
process.stdout.write('ready\n');
if (mode !== 'natural') setInterval(() => {}, 1_000);
