// A child process for the DEBUG=ioredis:* test: makes a RedisBudgetStore (from a url, or
// from a caller's ioredis client) with the password of argv, runs one reservation and
// settlement, makes the connection drop and come back (AUTH sent again), and exits.
// Run with DEBUG=ioredis:* so ioredis logs every command it writes, AUTH's too.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { RedisBudgetStore } from '../../src/redis-store.js';

const [how, port, username, password] = process.argv.slice(2) as [string, string, string, string];
const user = username === '-' ? '' : username;
const client =
  how === 'client'
    ? new Redis({
        host: '127.0.0.1',
        port: Number(port),
        username: user || undefined,
        password,
        lazyConnect: true,
      })
    : null;
const store =
  client !== null
    ? new RedisBudgetStore({ client, prefix: 'debug:' })
    : new RedisBudgetStore({
        url: `redis://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}`,
        prefix: 'debug:',
      });
await client?.connect();
const scopes = [{ key: `{debug-${randomUUID()}}`, limitNanoUsd: 1000, maxInFlight: null }];
const leaseId = randomUUID();
const granted = await store.acquire({ leaseId, scopes, amountNanoUsd: 10, ttlMs: 10_000 });
// A dropped connection: ioredis reconnects and sends AUTH again.
const admin = new Redis({ host: '127.0.0.1', port: Number(port), username: user || undefined, password });
await admin.call('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
// Until the store's client is back (a connection other than admin's: it reconnected, AUTH sent
// again), an event on the server, whatever the machine's speed.
const adminId = Number(await admin.call('CLIENT', 'ID'));
const deadline = performance.now() + 60_000;
for (;;) {
  const list = String(await admin.call('CLIENT', 'LIST', 'TYPE', 'normal'));
  const others = list
    .split('\n')
    .filter((line) => /^id=\d+/.test(line) && !line.startsWith(`id=${adminId} `));
  if (others.length > 0) break;
  if (performance.now() > deadline) throw new Error("the store's client did not reconnect within 60 s");
  await new Promise((resolve) => setTimeout(resolve, 10));
}
await store.settle(leaseId, scopes, { actualNanoUsd: 7 });
admin.disconnect();
await store.close();
client?.disconnect();
process.stdout.write(`${JSON.stringify({ granted: granted.granted })}\n`);
