// A server that ends each connection in the same read as it accepts it (what a client of a PostgreSQL
// killed at the wrong moment reads): the journal's migrate() and a read of it as a report source fail
// with their errors, and no 'error' event of a just-connected client goes unheard (pg-pool stops
// listening as it hands a client out; without guardPool that event ended the process).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type EndingPostgresServer,
  startEndingPostgresServer,
} from '../../budget/test/support/ending-postgres-server.js';
import { PostgresJournal } from '../src/postgres-journal.js';

describe('a PostgresJournal whose server ends each connection as it accepts it', () => {
  let server: EndingPostgresServer;
  beforeAll(async () => {
    server = await startEndingPostgresServer();
  });
  afterAll(() => server.close());

  it('migrate() rejects, naming no password, and the process goes on', async () => {
    const journal = new PostgresJournal({ url: server.url, exitHooks: false, warn: () => {} });
    const refused = await journal.migrate().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Error);
    expect(String((refused as Error).message)).not.toContain(server.password);
    expect(server.accepted()).toBeGreaterThan(0);
    await journal.close();
  });
});
