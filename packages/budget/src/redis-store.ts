import { randomUUID } from 'node:crypto';
import type { Redis, RedisOptions } from 'ioredis';
import type { AcquireRequest, AcquireResult, ScopeCounters, Settlement } from './acquire-request.js';
import type { BudgetStore, ThresholdMarks } from './budget-store.js';
import { checkTimerRange } from './duration-ms.js';
import { checkKnownKeys } from './known-keys.js';
import { hideFromIoredisDebug, loadIoredis } from './load-ioredis.js';
import { RecentMap } from './recent-map.js';
import type {
  RedisBudgetStoreClient,
  RedisClusterClient,
  RedisConnectionClient,
} from './redis-budget-store-client.js';
import {
  ACQUIRE_SCRIPT,
  CLOCK_SCRIPT,
  COUNTERS_SCRIPT,
  RENEW_SCRIPT,
  RESET_SCRIPT,
  SETTLE_SCRIPT,
  THRESHOLDS_SCRIPT,
} from './redis-scripts.js';
import { retentionOf } from './retention.js';
import type { StoredScope } from './scope-limits.js';
import { StoreError, storeErrorOf, withoutUserinfo } from './store-error.js';
import { checkedStoreUrl } from './store-url.js';

/** Options of a {@link RedisBudgetStore}. */
export interface RedisBudgetStoreOptions {
  /**
   * A connected `ioredis` client or cluster to use (not closed by `close()`): a `Redis` or
   * `Cluster` of ioredis 5 or 6.
   */
  client?: RedisBudgetStoreClient;
  /** Otherwise, the address to connect to, e.g. `redis://127.0.0.1:6379` (`rediss://` for TLS). */
  url?: string;
  /** Prefix of every key; must not contain `{`, `}`, control characters or a lone surrogate. Default `switchboard:budget:`. */
  prefix?: string;
  /** A command that takes longer fails, and the call is refused (or falls back). Default 2000 ms; at most 2^31 − 1. */
  commandTimeoutMs?: number;
  /** Where warnings go (an eviction policy that can drop budget keys); default `process.emitWarning`. */
  onWarning?: (message: string) => void;
  /**
   * How long an ended lease is remembered: its record (a re-sent command changes
   * nothing) and, for a call counted at its worst case, its unsettled entry (a late
   * settlement replaces the worst case by the cost). Then the entry is pruned by the
   * next script that touches the scope; its amount stays in the scope's spend.
   * Default 3,600,000 (1 h).
   */
  retentionMs?: number;
}

type Row = [number, number, number, number, number];
type Unreffable = { unref?: () => unknown };
type AcquireReply = (string | number)[];

interface BudgetCommands {
  budgetAcquire(keyCount: number, ...args: (string | number)[]): Promise<AcquireReply>;
  budgetSettle(keyCount: number, ...args: (string | number)[]): Promise<number>;
  budgetRenew(keyCount: number, ...args: (string | number)[]): Promise<number>;
  budgetCounters(keyCount: number, ...args: (string | number)[]): Promise<[...Row, number][]>;
  budgetReset(keyCount: number, ...args: (string | number)[]): Promise<string>;
  budgetClock(keyCount: 0): Promise<number>;
  budgetThresholds(keyCount: number, ...args: (string | number)[]): Promise<[number, number, number][]>;
}

/** How long a lease's record lives while held (renewals do not extend it): a late settlement is still recognised. */
const HELD_RECORD_MS = 24 * 3_600_000;

/**
 * Budget counters on Redis, shared by every process and machine that uses the
 * same Redis and prefix. Each check-and-reserve, settlement and renewal is one
 * Lua script (atomic) and idempotent by lease id. Keys per scope:
 * `<prefix>{root}/child:state` (a hash), `<prefix>{root}/child:leases` (a
 * sorted set of lease ids by expiry) and `<prefix>{root}/child:unsettled` (the
 * calls counted at their worst case, by time, until pruned after `retentionMs`),
 * and per lease `<prefix>{root}:lease:<id>` (its record, with a TTL); the braces
 * make every key under one root a single Redis Cluster hash slot, so a chain is
 * reserved in one script.
 *
 * Each scope's hash carries a ledger marker; when it is gone (a restart without
 * persistence, an eviction, `FLUSHDB`) while the process saw it, or while the
 * scope still holds figures (settlements that arrived after the loss, or the
 * tombstone a process that noticed the loss left), the scope's acquisitions
 * answer `ledger_lost`, in every process, until {@link RedisBudgetStore.resetLedger}.
 */
export class RedisBudgetStore implements BudgetStore {
  /** The key prefix. */
  readonly prefix: string;
  readonly #client: RedisBudgetStoreClient;
  /** The connection this store opened from its `url` (and closes), or null for a caller's client. */
  readonly #owned: Redis | null;
  readonly #commands: BudgetCommands;
  readonly #timeoutMs: number;
  readonly #retentionMs: number;
  readonly #where: string;
  readonly #onWarning: (message: string) => void;
  /**
   * The ledger marker this store saw per scope key, for its latest 10,000 scopes (windows and tenants
   * come and go): a scope forgotten is asked as one never seen, its loss found only while it holds figures.
   */
  readonly #ledgers = new RecentMap<string>(10_000);
  /** Each recent scope's three keys (state, leases, unsettled), built once. */
  readonly #scopeKeys = new RecentMap<readonly [string, string, string]>(10_000);
  #policyChecked = false;
  /** The server behind this connection was checked (INFO cluster) not to be a node of a Redis Cluster. */
  #standalone = false;
  #standaloneCheck: Promise<void> | null = null;
  /** Set once the server said it is a Cluster node: every acquisition is then refused with it. */
  #clusterNode: StoreError | null = null;
  /** The connection's last error, to say why a command failed while reconnecting. */
  #lastError: unknown = undefined;
  /** Set by close() on a store that owns its connection: commands are refused from then on. */
  #closed = false;
  #closing: Promise<void> | null = null;
  /** How to give up each command in flight in #run: close() does, so none outlives it. */
  readonly #inFlight = new Set<(error: StoreError) => void>();

  constructor(options: RedisBudgetStoreOptions) {
    if (options === null || typeof options !== 'object') {
      throw new TypeError('RedisBudgetStore options must be an object with a client or a url');
    }
    checkKnownKeys(
      options,
      ['client', 'url', 'prefix', 'commandTimeoutMs', 'onWarning', 'retentionMs'],
      'RedisBudgetStore options',
    );
    const prefix = options.prefix ?? 'switchboard:budget:';
    if (typeof prefix !== 'string' || /[{}\p{Cc}]/u.test(prefix)) {
      throw new TypeError("options.prefix must be a string without '{', '}' or control characters");
    }
    // A lone surrogate reaches Redis as U+FFFD: two such prefixes would share their keys.
    if (/[\uD800-\uDFFF]/u.test(prefix)) {
      throw new TypeError(
        `options.prefix must be well-formed Unicode (no lone surrogate), got ${JSON.stringify(prefix)}`,
      );
    }
    const timeoutMs = options.commandTimeoutMs ?? 2000;
    if (!(typeof timeoutMs === 'number' && Number.isFinite(timeoutMs) && timeoutMs > 0)) {
      throw new RangeError(`options.commandTimeoutMs must be a positive number, got ${String(timeoutMs)}`);
    }
    checkTimerRange(timeoutMs, 'options.commandTimeoutMs');
    if (options.onWarning !== undefined && typeof options.onWarning !== 'function') {
      throw new TypeError('options.onWarning must be a function');
    }
    this.#retentionMs = retentionOf(options.retentionMs, 'options');
    this.#onWarning =
      options.onWarning ?? ((message: string) => process.emitWarning(message, 'BudgetWarning'));
    if (options.client) {
      // Duck-typed, so a client from another copy of ioredis is welcome.
      if (typeof (options.client as Partial<RedisBudgetStoreClient>).defineCommand !== 'function') {
        throw new TypeError('options.client must be an ioredis Redis or Cluster client');
      }
      this.#client = options.client;
      this.#owned = null;
      this.#where = whereOf(options.client);
    } else if (typeof options.url === 'string' && options.url !== '') {
      const url = parseUrl(options.url);
      const redisOptions: RedisOptions = {
        // Fail fast instead of queueing while Redis is away: the budget then refuses (or falls back).
        maxRetriesPerRequest: 1,
        enableOfflineQueue: true,
        // No `commandTimeout`: #run's deadline bounds each command, and close() can clear it, whereas
        // ioredis's own timer outlives close() for a command queued while it reconnects.
        lazyConnect: false,
        retryStrategy: (times) => Math.min(50 * times, 1000),
        // close() ends the connection at once: ioredis would wait this long for a closing socket, and
        // as long again for one already lost (it arms the timer on the old socket while reconnecting).
        disconnectTimeout: 0,
      };
      this.#where = url.host;
      const client = new (loadIoredis().Redis)(options.url, redisOptions);
      // Its socket and its reconnect timer never hold a process open: a command in flight
      // is held by the deadline timer of #run, and close() ends the connection for good.
      client.on('connect', () => (client as unknown as { stream?: Unreffable }).stream?.unref?.());
      client.on('reconnecting', () =>
        (client as unknown as { reconnectTimeout?: Unreffable }).reconnectTimeout?.unref?.(),
      );
      this.#client = client;
      this.#owned = client;
    } else {
      throw new TypeError('RedisBudgetStore needs options.client (an ioredis client) or options.url');
    }
    // ioredis's debug output (DEBUG=ioredis:*) logs AUTH's arguments: the password is hidden there.
    const auth = isCluster(this.#client)
      ? (this.#client.options.redisOptions ?? {})
      : (this.#client.options ?? {});
    hideFromIoredisDebug(auth.username, auth.password);
    // Connection errors surface on the commands; without a listener ioredis would log each.
    this.#client.on('error', (error: unknown) => {
      this.#lastError = error;
    });
    this.#client.on('ready', () => {
      this.#lastError = undefined;
    });
    if (isCluster(this.#client)) this.#standalone = true;
    // A connection made again may reach another server: it is checked again before the next grant.
    else this.#client.on('close', () => this.#uncheck());
    this.prefix = prefix;
    this.#timeoutMs = timeoutMs;
    this.#client.defineCommand('budgetAcquire', { lua: ACQUIRE_SCRIPT });
    this.#client.defineCommand('budgetSettle', { lua: SETTLE_SCRIPT });
    this.#client.defineCommand('budgetRenew', { lua: RENEW_SCRIPT });
    this.#client.defineCommand('budgetCounters', { lua: COUNTERS_SCRIPT });
    this.#client.defineCommand('budgetReset', { lua: RESET_SCRIPT });
    this.#client.defineCommand('budgetClock', { lua: CLOCK_SCRIPT });
    this.#client.defineCommand('budgetThresholds', { lua: THRESHOLDS_SCRIPT });
    this.#commands = this.#client as unknown as BudgetCommands;
  }

  async acquire(request: AcquireRequest): Promise<AcquireResult> {
    if (!this.#standalone) await this.#checkStandalone();
    const { scopes, leaseId } = request;
    const args: (string | number)[] = this.#keys(scopes);
    args.push(
      this.#recordKey(scopes, leaseId),
      leaseId,
      request.amountNanoUsd,
      Math.ceil(request.ttlMs),
      HELD_RECORD_MS,
      this.#retentionMs,
      '',
    );
    const freshAt = args.length - 1;
    let known = true;
    for (const scope of scopes) {
      const ledger = this.#ledgers.get(scope.key);
      if (ledger === undefined) known = false;
      const window = scope.window;
      // One argument per scope (ACQUIRE_SCRIPT): the numbers, then the ledger known, which holds no comma.
      args.push(
        `${scope.limitNanoUsd ?? -1},${scope.maxInFlight ?? -1},${window?.startMs ?? -1},${window?.endMs ?? -1},${ledger ?? ''}`,
      );
    }
    // A fresh marker is only ever written into a scope this process knows no marker of.
    if (!known) args[freshAt] = randomUUID();
    const reply = await this.#run(() => this.#commands.budgetAcquire(scopes.length * 3 + 1, ...args));
    if (reply[0] === 'ok') {
      const counters: ScopeCounters[] = [];
      for (let index = 0; index < scopes.length; index++) {
        const at = 1 + index * 6;
        this.#ledgers.set((scopes[index] as StoredScope).key, String(reply[at]));
        counters.push(countersOf(reply, at + 1));
      }
      this.#checkPolicy();
      return { granted: true, counters };
    }
    const [reason, index, ...row] = reply as [string, number, ...Row, number];
    const scopeIndex = Number(index) - 1;
    if (reason === 'window') {
      return { granted: false, reason, scopeIndex, counters: countersOf([]), nowMs: Number(row[0]) };
    }
    return {
      granted: false,
      reason: reason as 'spend' | 'reserved' | 'in_flight' | 'ledger_lost' | 'ended',
      scopeIndex,
      counters: countersOf(row),
      nowMs: Number(row[5]),
    };
  }

  async settle(leaseId: string, scopes: readonly StoredScope[], settlement: Settlement): Promise<boolean> {
    // Nothing was granted on a Cluster node: nothing is written there either.
    if (this.#clusterNode !== null) throw this.#clusterNode;
    const args: (string | number)[] = this.#keys(scopes);
    args.push(
      this.#recordKey(scopes, leaseId),
      leaseId,
      settlement.actualNanoUsd,
      settlement.unsettled === true ? 1 : 0,
      this.#retentionMs,
      settlement.leased === true ? 1 : 0,
    );
    args.push(...windowEnds(scopes));
    const held = await this.#run(() => this.#commands.budgetSettle(scopes.length * 3 + 1, ...args));
    return held === 1;
  }

  async renew(
    leases: readonly { leaseId: string; scopes: readonly StoredScope[] }[],
    ttlMs: number,
  ): Promise<string[]> {
    const replies = await this.#run(() =>
      Promise.all(
        leases.map(({ leaseId, scopes }) =>
          this.#commands.budgetRenew(
            scopes.length * 3 + 1,
            ...this.#keys(scopes),
            this.#recordKey(scopes, leaseId),
            leaseId,
            Math.ceil(ttlMs),
          ),
        ),
      ),
    );
    return leases.flatMap(({ leaseId }, index) => (replies[index] === 1 ? [] : [leaseId]));
  }

  async counters(scopes: readonly StoredScope[]): Promise<ScopeCounters[]> {
    if (!this.#standalone) await this.#checkStandalone();
    const rows = await this.#run(() =>
      this.#commands.budgetCounters(
        scopes.length * 3 + 1,
        ...this.#keys(scopes),
        this.#recordKey(scopes, '-'),
        this.#retentionMs,
        ...scopes.map((scope) => this.#ledgers.get(scope.key) ?? ''),
        ...windowEnds(scopes),
      ),
    );
    return rows.map((row) => ({ ...countersOf(row.slice(0, 5) as Row), ledgerLost: Number(row[5]) === 1 }));
  }

  async markThresholds(
    scopes: readonly StoredScope[],
    levels: readonly (readonly number[] | null)[],
  ): Promise<ThresholdMarks[]> {
    const n = Math.max(0, ...levels.map((each) => each?.length ?? 0));
    const rows = await this.#run(() =>
      this.#commands.budgetThresholds(
        scopes.length * 3 + 1,
        ...this.#keys(scopes),
        this.#recordKey(scopes, '-'),
        this.#retentionMs,
        n,
        ...scopes.flatMap((scope, index) => {
          const asked = levels[index] ?? null;
          // A scope not asked, or asked fewer levels, is padded with levels no spend reaches.
          const padded = Array.from({ length: n }, (_, k) => asked?.[k] ?? Number.MAX_SAFE_INTEGER);
          return [scope.window?.endMs ?? -1, asked === null ? 0 : 1, ...padded];
        }),
      ),
    );
    return rows.map(([from, to, spent]) => ({
      from: Number(from),
      to: Number(to),
      spentNanoUsd: Number(spent),
    }));
  }

  /** Redis's clock (`TIME`), in ms since the epoch: the clock that decides calendar windows. */
  async clockMs(): Promise<number> {
    return Number(await this.#run(() => this.#commands.budgetClock(0)));
  }

  /** Starts a new ledger in these scopes (keeping what they hold now) and adopts it; other processes adopt it too. */
  async resetLedger(scopes: readonly StoredScope[]): Promise<void> {
    const marker = await this.#run(() =>
      this.#commands.budgetReset(
        scopes.length * 3 + 1,
        ...this.#keys(scopes),
        this.#recordKey(scopes, '-'),
        randomUUID(),
      ),
    );
    for (const scope of scopes) this.#ledgers.set(scope.key, String(marker));
  }

  /** The Redis keys of a scope: its state hash, its lease set and its unsettled entries. */
  keysOf(scope: StoredScope): { state: string; leases: string; unsettled: string } {
    const at = `${this.prefix}${scope.key}`;
    return { state: `${at}:state`, leases: `${at}:leases`, unsettled: `${at}:unsettled` };
  }

  /**
   * Closes the connection when this store opened it (from a `url`); a given client is
   * left open. Waits for the server's answer to QUIT at most `commandTimeoutMs`, and not
   * at all while disconnected; commands still waiting for Redis fail at once (the store
   * was closed). Once it resolves, nothing of the store keeps the process alive: no
   * socket, no reconnection, no timer.
   */
  close(): Promise<void> {
    if (this.#owned === null) return Promise.resolve();
    this.#closing ??= this.#close(this.#owned);
    return this.#closing;
  }

  async #close(client: Redis): Promise<void> {
    this.#closed = true;
    if (client.status === 'ready') {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        client.quit().catch(() => {}),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, this.#timeoutMs);
        }),
      ]);
      clearTimeout(timer);
    }
    if (client.status !== 'end') {
      // A connection open or opening ends with its socket ('end'); one lost while reconnecting has
      // no socket left to close, and ioredis never says 'end' for it (nor fails its queued commands).
      const ended =
        client.status === 'reconnecting'
          ? Promise.resolve()
          : new Promise<void>((resolve) => client.once('end', () => resolve()));
      client.disconnect();
      // disconnect() arms a timer (disconnectTimeout, 0 here) to destroy the socket it ended, even
      // one long closed; a zero timer set after it fires after it.
      await Promise.all([ended, new Promise<void>((resolve) => setTimeout(resolve, 0))]);
    }
    const closed = new StoreError(`Redis at ${this.#where}: the store was closed`);
    for (const giveUp of this.#inFlight) giveUp(closed);
  }

  /** Only where it connects: never the password. */
  toJSON(): { where: string; prefix: string } {
    return { where: this.#where, prefix: this.prefix };
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `RedisBudgetStore ${JSON.stringify(this.toJSON())}`;
  }

  #keys(scopes: readonly StoredScope[]): string[] {
    const keys: string[] = [];
    for (const scope of scopes) {
      let own = this.#scopeKeys.get(scope.key);
      if (own === undefined) {
        const { state, leases, unsettled } = this.keysOf(scope);
        own = [state, leases, unsettled];
        this.#scopeKeys.set(scope.key, own);
      }
      keys.push(own[0], own[1], own[2]);
    }
    return keys;
  }

  /** The lease's record, under the root's hash tag like every key of its chain. */
  #recordKey(scopes: readonly StoredScope[], leaseId: string): string {
    return `${this.prefix}${scopes[0]?.key ?? ''}:lease:${leaseId}`;
  }

  /** Runs a command with our own deadline (a given client may queue while it reconnects); errors in words. */
  async #run<T>(command: () => Promise<T>): Promise<T> {
    // Nothing is sent: the connection is closed for good.
    if (this.#closed) throw new StoreError(`Redis at ${this.#where}: the store was closed`, false, true);
    let timer: NodeJS.Timeout | undefined;
    let giveUp: ((error: StoreError) => void) | undefined;
    const deadline = new Promise<never>((_, reject) => {
      giveUp = reject;
      this.#inFlight.add(reject);
      timer = setTimeout(
        () =>
          reject(
            this.#lastError === undefined
              ? new StoreError(`Redis at ${this.#where}: no answer within ${this.#timeoutMs} ms (timeout)`)
              : storeErrorOf(this.#lastError, this.#where),
          ),
        this.#timeoutMs,
      );
    });
    try {
      return await Promise.race([command(), deadline]);
    } catch (error) {
      throw storeErrorOf(error, this.#where, this.#lastError);
    } finally {
      clearTimeout(timer);
      if (giveUp !== undefined) this.#inFlight.delete(giveUp);
    }
  }

  /**
   * Before the first grant on a connection: a `url` (or a plain client) naming one node of a
   * Redis Cluster would reach only the scopes whose hash slots that node serves and get
   * `MOVED` for the others, so a run would work under one name and fail under another. The
   * server is asked `INFO cluster` once per connection; `cluster_enabled:1` is a configuration
   * error for every scope, before any call is granted. A user that may not run INFO is not
   * asked (the `MOVED` answer still names the cause).
   */
  async #checkStandalone(): Promise<void> {
    if (this.#clusterNode !== null) throw this.#clusterNode;
    this.#standaloneCheck ??= this.#askClusterMode().catch((error: unknown) => {
      this.#standaloneCheck = null;
      throw error;
    });
    await this.#standaloneCheck;
  }

  async #askClusterMode(): Promise<void> {
    let info: string;
    try {
      // A Cluster client never asks: the store only checks a single connection.
      info = String(await this.#run(() => (this.#client as RedisConnectionClient).info('cluster')));
    } catch (error) {
      if (/NOPERM/.test(error instanceof Error ? error.message : String(error))) {
        this.#standalone = true;
        return;
      }
      throw error;
    }
    if (/^cluster_enabled:1\b/m.test(info)) {
      this.#clusterNode = new StoreError(
        `Redis at ${this.#where} is a node of a Redis Cluster (cluster_enabled:1): one node serves only some of the hash slots, so a budget would work for some scope names and fail for others; pass an ioredis Cluster client as the store's client instead of a url`,
        true,
      );
      throw this.#clusterNode;
    }
    this.#standalone = true;
  }

  #uncheck(): void {
    if (this.#clusterNode !== null) return;
    this.#standalone = false;
    this.#standaloneCheck = null;
  }

  /** Once, after the first answer: warn when the server may evict the budget's keys. */
  #checkPolicy(): void {
    if (this.#policyChecked) return;
    this.#policyChecked = true;
    const client = this.#client;
    // Through #run, as every command: bounded by its deadline, and given up by close().
    const ask = this.#run(() =>
      isCluster(client)
        ? Promise.all(client.nodes('master').map((node) => node.config('GET', 'maxmemory-policy')))
        : client.config('GET', 'maxmemory-policy').then((reply) => [reply]),
    );
    ask.then(
      (replies) => {
        const policies = new Set(replies.map((reply) => configValue(reply, 'maxmemory-policy')));
        const evicting = [...policies].filter((policy) => policy !== '' && policy !== 'noeviction');
        if (evicting.length > 0) {
          this.#onWarning(
            `Redis at ${this.#where} has maxmemory-policy ${evicting.join(', ')}: it may evict budget keys, and a scope whose ledger is evicted refuses every call (ledger_lost); set maxmemory-policy noeviction`,
          );
        }
      },
      // An ACL user may not run CONFIG; the ledger marker still catches an eviction.
      () => {},
    );
  }
}

/** Each scope's window end in ms, -1 for a scope without a window. */
function windowEnds(scopes: readonly StoredScope[]): number[] {
  return scopes.map((scope) => scope.window?.endMs ?? -1);
}

/** The five counters of a reply from `at` (spent, reserved, in flight, unsettled, unsettled calls). */
function countersOf(row: readonly (string | number)[], at = 0): ScopeCounters {
  return {
    spentNanoUsd: Number(row[at] ?? 0),
    reservedNanoUsd: Number(row[at + 1] ?? 0),
    inFlight: Number(row[at + 2] ?? 0),
    unsettledNanoUsd: Number(row[at + 3] ?? 0),
    unsettledCalls: Number(row[at + 4] ?? 0),
  };
}

/** The url checked: redis:// or rediss://, named in errors without its userinfo. */
function parseUrl(text: string): URL {
  return checkedStoreUrl(
    text,
    ['redis:', 'rediss:'],
    'options.url must be a redis:// or rediss:// address, e.g. redis://127.0.0.1:6379 (the given text is not a URL; not shown, as it may hold a password)',
    'options.url must be a redis:// or rediss:// address',
  );
}

function isCluster(client: RedisBudgetStoreClient): client is RedisClusterClient {
  return (client as { isCluster?: unknown }).isCluster === true;
}

/** The value of `CONFIG GET <name>`: a flat `[name, value]` (RESP2, and ioredis 6's default mapping) or a map (RESP3). */
function configValue(reply: unknown, name: string): string {
  if (Array.isArray(reply)) return String(reply[1] ?? '');
  if (reply instanceof Map) return String(reply.get(name) ?? '');
  if (typeof reply === 'object' && reply !== null)
    return String((reply as Record<string, unknown>)[name] ?? '');
  return '';
}

function whereOf(client: RedisBudgetStoreClient): string {
  if (isCluster(client)) return 'the cluster';
  const { host, port, path } = client.options;
  return withoutUserinfo(path ? String(path) : `${host ?? 'localhost'}:${port ?? 6379}`);
}
