import { codeOf, connectionErrors, StoreError, withoutUserinfo } from './store-error.js';

const CODES: Readonly<Record<string, string>> = {
  ...connectionErrors('PostgreSQL'),
  // SQLSTATEs
  '28P01': 'authentication failed (28P01): check the user and password of the url or pool',
  '28000': 'authorization failed (28000): the server refused this user (pg_hba.conf)',
  '3D000': 'the database does not exist (3D000)',
  '42501':
    'permission denied (42501): the user needs CREATE on the database (for the schema) or USAGE on the schema and SELECT, INSERT, UPDATE, DELETE on its tables; see docs/budgets-postgres.md',
  '57P01': 'the server is shutting down (57P01)',
  '57P02': 'the server crashed or is restarting (57P02)',
  '57P03': 'the server is starting up or recovering (57P03)',
  '53300': 'too many connections (53300)',
  '57014': 'a statement was cancelled (57014: statement_timeout)',
  '55P03':
    'a lock was not granted within statementTimeoutMs (55P03: another session holds a row the operation needs); nothing was changed',
};

/** The server answered, but gave up waiting: a lock not granted in time, a statement past its timeout. */
const TIMED_OUT = new Set(['55P03', '57014']);

/**
 * What went wrong with PostgreSQL at `where` (`host:port/db`), in words: the cause
 * (ECONNREFUSED, a failed password, a server restarting…), never a password (URL
 * userinfo and each of `secrets` are removed from any text shown).
 */
export function pgErrorOf(
  error: unknown,
  where: string,
  secrets: readonly string[],
  ranNothing: boolean,
): StoreError {
  if (error instanceof StoreError) return error;
  const code = codeOf(error);
  const at = `PostgreSQL at ${where}`;
  if (code !== undefined && CODES[code]) {
    return new StoreError(`${at}: ${CODES[code]}`, false, ranNothing, TIMED_OUT.has(code));
  }
  let message = error instanceof Error ? error.message : String(error);
  if (/timeout exceeded when trying to connect|terminated due to connection timeout/i.test(message)) {
    message = 'no connection within the pool’s connectionTimeoutMillis (timeout)';
  } else if (/Connection terminated|not queryable|Client has encountered a connection error/i.test(message)) {
    message = 'the connection was lost (the server went away)';
  } else if (/Query read timeout/i.test(message)) {
    message = 'no answer within query_timeout (timeout)';
  }
  let text = withoutUserinfo(message);
  for (const secret of secrets) text = text.split(secret).join('***');
  return new StoreError(
    `${at}: ${text.slice(0, 300)}${code === undefined ? '' : ` (${code})`}`,
    false,
    ranNothing,
  );
}
