// One worker of the fleet test (fleet.test.ts): CALLS calls to the emulator, each journaled into its own
// file and into the fleet's PostgresJournal at once; its host is SWITCHBOARD_HOST. Prints what both wrote.
import { ChatAdapter, FetchTransport } from '@switchboard/adapter';
import { costOf, PriceBook, priceOf } from '@switchboard/prices';
import { CallJournal, PostgresJournal } from '../dist/index.js';

const [baseUrl, apiKey, file, url, calls] = process.argv.slice(2);
const book = new PriceBook();
const endpoint = { provider: 'primary', baseUrl, thinking: false };
const journal = new CallJournal(file, { endpoint });
const database = new PostgresJournal({ url, schema: 'fleet', endpoint });
// Four workers migrate at once: the advisory lock takes them one at a time.
await database.migrate();
const adapter = new ChatAdapter(new FetchTransport({ apiKey, baseUrl, maxAttempts: 1 }), {
  observers: [journal, database],
  // Priced from the shipped table (priceSource 'table'): a line --verify re-derives.
  endpoint: {
    cost: (usage) => costOf(priceOf('primary-flash'), usage),
    priceCall: (call) => book.priceCall(call),
  },
  disableThinking: false,
});
const role = process.env.SWITCHBOARD_HOST === 'host-a' ? 'triage' : 'judge';
const view = adapter.forRole(role);
// Three calls at a time, as a worker's requests overlap.
let next = 0;
async function lane() {
  while (next < Number(calls)) {
    const call = next++;
    await view.complete({
      model: 'primary-flash',
      messages: [
        { role: 'user', content: `Worker ${process.pid}, call ${call}: why did step ${call % 7} fail?` },
      ],
      maxTokens: 24 + (call % 5),
    });
  }
}
await Promise.all([lane(), lane(), lane()]);
await database.close();
const dropped = await journal.close();
process.stdout.write(
  `${JSON.stringify({ lines: journal.lines, dropped, rows: database.lines, rowsDropped: database.dropped })}\n`,
);
