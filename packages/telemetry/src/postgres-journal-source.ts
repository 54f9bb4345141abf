import type { NamedJournal } from './journal-merge.js';
import { type PgClient, pgLabel, pgPool } from './load-pg.js';
import { journalSchema, readSql, UNTRUSTED_ROLES_SQL, untrustedText } from './postgres-journal-sql.js';

/** Options of {@link postgresJournalSource}. */
export interface PostgresJournalSourceOptions {
  /** The journal's schema; default the address's `?schema=`, else `switchboard`. */
  readonly schema?: string;
  /** Rows read per query; default 5,000. */
  readonly pageRows?: number;
  /** Told when another role could have changed the rows (see `PostgresJournal.migrate`); default: a process warning. */
  readonly warn?: (message: string) => void;
}

/**
 * A journal in PostgreSQL (written by `PostgresJournal`) as a journal every reader takes
 * (`reportJournals`, `verifyJournals`, `scanJournal`…): its rows' lines in the order they were
 * written, a page at a time (memory bounded by a page), named `postgres://host:port/db schema
 * "switchboard"` — never with the password. `?schema=name` in the address picks the schema. Each
 * reading connects when it starts and ends the connection when it stops.
 */
export function postgresJournalSource(url: string, options: PostgresJournalSourceOptions = {}): NamedJournal {
  let address: URL;
  try {
    address = new URL(url);
  } catch {
    throw new TypeError(`${pgLabel(url)}: expected a postgres:// address`);
  }
  const schema = journalSchema(options.schema ?? address.searchParams.get('schema') ?? undefined);
  address.searchParams.delete('schema');
  const name = `${pgLabel(url)} schema "${schema}"`;
  const pageRows = options.pageRows ?? 5_000;
  const warn = options.warn ?? ((message: string) => process.emitWarning(message, 'JournalWarning'));
  const connection = address.toString();
  // Each reading is a query of its own: a verification reads the journal twice.
  return { name, source: { [Symbol.asyncIterator]: () => rows(connection, schema, name, pageRows, warn) } };
}

async function* rows(
  url: string,
  schema: string,
  name: string,
  pageRows: number,
  warn: (message: string) => void,
): AsyncGenerator<string> {
  const pool = pgPool(url, 'Reading a journal in PostgreSQL');
  let client: PgClient | null = null;
  try {
    client = await pool.connect();
    await client.query("SELECT pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', false)");
    const refusal = untrustedText(schema, (await client.query(UNTRUSTED_ROLES_SQL, [schema])).rows);
    if (refusal !== null) warn(`${name}: ${refusal}`);
    const read = readSql(schema);
    let last = '0';
    for (;;) {
      const page = (await client.query(read, [last, pageRows])).rows;
      if (page.length === 0) return;
      last = String(page[page.length - 1]?.id);
      yield `${page.map((row) => String(row.line)).join('\n')}\n`;
    }
  } finally {
    client?.release();
    await pool.end().catch(() => undefined);
  }
}
