// A server that ends a connection in the same read as it accepts it: pg-pool hands the client out (and
// stops listening to its errors) as it reads "ready for query", and the FATAL behind it in the same
// chunk is an 'error' event before the caller's code can listen. Without a listener from the moment the
// client is connected (guardPool), that event ended the process (as a PostgreSQL killed during a call
// once did in CI: "terminating connection due to unexpected postmaster exit", uncaught).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresBudgetStore } from '../src/postgres-store.js';
import { listBudgetScopes } from '../src/show/scope-listing.js';
import { type EndingPostgresServer, startEndingPostgresServer } from './support/ending-postgres-server.js';

describe('a PostgreSQL connection ended in the same read as it was accepted', () => {
  let server: EndingPostgresServer;
  beforeAll(async () => {
    server = await startEndingPostgresServer();
  });
  afterAll(() => server.close());

  it('refuses the store operation as a StoreError, and no error event goes unheard', async () => {
    const store = new PostgresBudgetStore({ url: server.url, schema: 'race' });
    const before = server.accepted();
    const refused = await Promise.resolve(store.migrate()).catch((error: unknown) => error);
    expect(refused).toMatchObject({ name: 'StoreError' });
    expect(String((refused as Error).message)).not.toContain(server.password);
    // The race happened: the server accepted and ended a connection (the pool's first).
    expect(server.accepted()).toBeGreaterThan(before);
    await store.close();
  });

  it('budget show reading the same server fails with a clear error, and no error event goes unheard', async () => {
    const listed = async () => {
      for await (const scope of listBudgetScopes({ url: server.url })) void scope;
    };
    const refused = await listed().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Error);
    expect(String((refused as Error).message)).not.toContain(server.password);
  });
});
