import type { Cluster, Redis } from 'ioredis';
import { hideFromIoredisDebug, loadIoredis } from '../load-ioredis.js';
import { baseKeyOf } from '../scope-windows.js';
import { StoreError, storeErrorOf } from '../store-error.js';
import { type BudgetScopeListing, listingOf } from './listing-of.js';
import { readLedgers } from './redis-ledgers.js';
import { type FoundWindow, windowEnds, windowsOf } from './redis-windows.js';

/** Keys asked per SCAN (COUNT): a page of the keyspace, read and listed before the next. */
const SCAN_COUNT = 1000;
/** Scopes remembered as listed, so a key SCAN returns twice (while Redis resizes its table) is listed once. */
const RECENT = 10_000;

/**
 * The scopes of a RedisBudgetStore under `prefix`, read-only: SCAN (MATCH `<prefix>{*:state`, COUNT
 * 1000) on the node of `url`, or on every master when that node is one of a Redis Cluster
 * (`cluster_enabled:1`). Only `scopeKey`'s keys with one.
 */
export async function* redisScopes(
  url: string,
  prefix: string | undefined,
  scopeKey: string | null,
): AsyncGenerator<BudgetScopeListing> {
  const keyPrefix = prefix ?? 'switchboard:budget:';
  if (typeof keyPrefix !== 'string' || /[{}\p{Cc}\uD800-\uDFFF]/u.test(keyPrefix)) {
    throw new TypeError(
      "listBudgetScopes options.prefix must be a string without '{', '}' or control characters",
    );
  }
  const where = new URL(url).host;
  const { Redis: RedisClient, Cluster: ClusterClient } = loadIoredis();
  let lastError: unknown;
  const quiet = {
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
    lazyConnect: true,
    connectTimeout: 5000,
    // Closing ends the socket at once (ioredis would otherwise keep a 2 s timer for it).
    disconnectTimeout: 0,
  };
  const client = new RedisClient(url, quiet);
  hideFromIoredisDebug(client.options.username, client.options.password);
  client.on('error', (error: unknown) => {
    lastError = error;
  });
  let cluster: Cluster | null = null;
  try {
    const nodes = await (async (): Promise<Redis[]> => {
      await client.connect();
      // A user that may not run INFO is taken to be on a server of its own (as the store does).
      const info = String(
        await client
          .info('cluster')
          .catch((error: unknown) => (isNoPerm(error) ? '' : Promise.reject(error))),
      );
      if (!/^cluster_enabled:1\b/m.test(info)) return [client];
      const { username, password, tls } = client.options;
      cluster = new ClusterClient(
        [{ host: client.options.host ?? '127.0.0.1', port: client.options.port ?? 6379 }],
        {
          redisOptions: { username, password, tls, connectTimeout: 5000, disconnectTimeout: 0 },
          clusterRetryStrategy: () => null,
          lazyConnect: true,
        },
      );
      cluster.on('error', (error: unknown) => {
        lastError = error;
      });
      await cluster.connect();
      return cluster.nodes('master');
    })().catch((error: unknown) => {
      throw showErrorOf(error, where, lastError);
    });
    const listed = new Set<string>();
    for (const node of nodes) {
      const pages =
        scopeKey === null
          ? scanned(node, `${globEscaped(keyPrefix)}{*:state`)
          : scopePages(node, keyPrefix, scopeKey);
      for await (const page of pages) {
        for (const listing of await listPage(node, keyPrefix, page)) {
          if (listed.has(listing.scope)) continue;
          listed.add(listing.scope);
          if (listed.size > RECENT) listed.delete(listed.values().next().value as string);
          yield listing;
        }
      }
    }
  } catch (error) {
    throw error instanceof TypeError ? error : showErrorOf(error, where, lastError);
  } finally {
    const clusterClient = cluster as Cluster | null;
    clusterClient?.disconnect();
    client.disconnect();
  }
}

function isNoPerm(error: unknown): boolean {
  return error instanceof Error && /NOPERM/.test(error.message);
}

/** A Redis failure in words; a command the ACL user may not run names the commands the listing needs. */
function showErrorOf(error: unknown, where: string, lastError: unknown): StoreError {
  if (!isNoPerm(error)) return storeErrorOf(error, where, lastError);
  return new StoreError(
    `Redis at ${where}: the ACL user may not run a command the listing reads with (NOPERM): allow +time +scan +exists +hmget +zcount +zrangebyscore +pttl (+info, and +cluster for a Cluster) on the budget's key prefix`,
    true,
  );
}

/** The state keys a SCAN with `match` returns, a page at a time. */
async function* scanned(node: Redis, match: string): AsyncGenerator<string[]> {
  let cursor = '0';
  do {
    const [next, keys] = await node.scan(cursor, 'MATCH', match, 'COUNT', SCAN_COUNT);
    cursor = next;
    if (keys.length > 0) yield keys;
  } while (cursor !== '0');
}

/** One scope's state keys: its ledger, and its windows (found by SCAN with MATCH `<key>{*}:state`). */
async function* scopePages(node: Redis, prefix: string, scopeKey: string): AsyncGenerator<string[]> {
  const state = `${prefix}${scopeKey}:state`;
  if ((await node.exists(state)) > 0) yield [state];
  yield* scanned(node, `${globEscaped(`${prefix}${scopeKey}`)}{*}:state`);
}

/** The listings of a page of state keys: a scope without windows at once, a windowed one from its latest window. */
async function listPage(
  node: Redis,
  prefix: string,
  stateKeys: readonly string[],
): Promise<BudgetScopeListing[]> {
  const nowMs = await timeOf(node);
  const plain: string[] = [];
  const windowed: { base: string; startMs: number; stateKey: string }[] = [];
  for (const stateKey of stateKeys) {
    const key = stateKey.slice(prefix.length, -':state'.length);
    if (!key.startsWith('{')) continue;
    const base = baseKeyOf(key);
    const startMs = base === key ? Number.NaN : Date.parse(key.slice(base.length + 1, -1));
    if (base === key) plain.push(stateKey);
    else if (Number.isFinite(startMs)) windowed.push({ base: `${prefix}${base}`, startMs, stateKey });
  }
  const listings: BudgetScopeListing[] = [];
  const figures = await readLedgers(node, plain, nowMs);
  for (const [index, stateKey] of plain.entries()) {
    listings.push(
      listingOf(stateKey.slice(prefix.length, -':state'.length), figures[index] ?? null, [], nowMs),
    );
  }
  const ends = await windowEnds(
    node,
    windowed.map((window) => window.stateKey),
    nowMs,
  );
  for (const [index, { base, startMs, stateKey }] of windowed.entries()) {
    const endMs = ends[index];
    if (endMs === null || endMs === undefined || endMs <= startMs) continue;
    const known: FoundWindow = { stateKey, startMs, endMs };
    const windows = await windowsOf(node, base, known, nowMs);
    if (windows === null) continue;
    const ledgers = await readLedgers(
      node,
      windows.map((window) => window.stateKey),
      nowMs,
    );
    const stored = windows.map((window, at) => ({
      ...window,
      ...(ledgers[at] ?? { spent: 0, reserved: 0, inFlight: 0, unsettled: 0 }),
    }));
    listings.push(listingOf(base.slice(prefix.length), null, stored, nowMs));
  }
  return listings;
}

/** Redis's clock (TIME) in ms: the clock that decides the budget's windows. */
async function timeOf(node: Redis): Promise<number> {
  const [seconds, micros] = await node.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

/** Text matched as itself in a SCAN pattern. */
function globEscaped(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}
