import type { Cluster, Redis, RedisOptions } from 'ioredis';
import type { AcquireRequest, AcquireResult, BudgetStore, ScopeCounters } from './budget-store.js';
import { loadIoredis } from './load-ioredis.js';
import { ACQUIRE_SCRIPT, COUNTERS_SCRIPT, RENEW_SCRIPT, SETTLE_SCRIPT } from './redis-scripts.js';
import type { StoredScope } from './scope-limits.js';

/** Options of a {@link RedisBudgetStore}. */
export interface RedisBudgetStoreOptions {
  /** A connected `ioredis` client or cluster to use (not closed by `close()`). */
  client?: Redis | Cluster;
  /** Otherwise, the address to connect to, e.g. `redis://127.0.0.1:6379`. */
  url?: string;
  /** Prefix of every key; must not contain `{` or `}`. Default `switchboard:budget:`. */
  prefix?: string;
  /** A command that takes longer fails, and the call is refused (or falls back). Default 2000 ms. */
  commandTimeoutMs?: number;
}

type ScriptReply = [string, number, number, number, number] | ['ok'];

interface BudgetCommands {
  budgetAcquire(keyCount: number, ...args: (string | number)[]): Promise<ScriptReply>;
  budgetSettle(keyCount: number, ...args: (string | number)[]): Promise<number>;
  budgetRenew(keyCount: number, ...args: (string | number)[]): Promise<number>;
  budgetCounters(keyCount: number, ...args: (string | number)[]): Promise<[number, number, number][]>;
}

/**
 * Budget counters on Redis, shared by every process and machine that uses the
 * same Redis and prefix. Each check-and-reserve, settlement and renewal is one
 * Lua script (atomic). Keys per scope: `<prefix>{root}/child:state` (a hash:
 * `spent`, `reserved`, `r:<lease>`) and `<prefix>{root}/child:leases` (a sorted
 * set of lease ids by expiry), and per root `<prefix>{root}:settled` (lease ids
 * settled in the last 10 minutes, so a retried settlement counts once); the braces
 * make every scope under one root a single Redis Cluster hash slot, so a chain is
 * reserved in one script.
 */
export class RedisBudgetStore implements BudgetStore {
  /** The key prefix. */
  readonly prefix: string;
  readonly #client: Redis | Cluster;
  readonly #owned: boolean;
  readonly #commands: BudgetCommands;
  readonly #timeoutMs: number;

  constructor(options: RedisBudgetStoreOptions) {
    if (options === null || typeof options !== 'object') {
      throw new TypeError('RedisBudgetStore options must be an object with a client or a url');
    }
    const prefix = options.prefix ?? 'switchboard:budget:';
    if (typeof prefix !== 'string' || /[{}]/.test(prefix)) {
      throw new TypeError("options.prefix must be a string without '{' or '}'");
    }
    const timeoutMs = options.commandTimeoutMs ?? 2000;
    if (!(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
      throw new RangeError(`options.commandTimeoutMs must be a positive number, got ${String(timeoutMs)}`);
    }
    if (options.client) {
      this.#client = options.client;
      this.#owned = false;
    } else if (typeof options.url === 'string' && options.url !== '') {
      const redisOptions: RedisOptions = {
        // Fail fast instead of queueing while Redis is away: the budget then refuses (or falls back).
        maxRetriesPerRequest: 1,
        enableOfflineQueue: true,
        commandTimeout: timeoutMs,
        lazyConnect: false,
      };
      this.#client = new (loadIoredis().Redis)(options.url, redisOptions);
      // Connection errors surface on the commands; without a listener ioredis would log each.
      this.#client.on('error', () => {});
      this.#owned = true;
    } else {
      throw new TypeError('RedisBudgetStore needs options.client (an ioredis client) or options.url');
    }
    this.prefix = prefix;
    this.#timeoutMs = timeoutMs;
    this.#client.defineCommand('budgetAcquire', { lua: ACQUIRE_SCRIPT });
    this.#client.defineCommand('budgetSettle', { lua: SETTLE_SCRIPT });
    this.#client.defineCommand('budgetRenew', { lua: RENEW_SCRIPT });
    this.#client.defineCommand('budgetCounters', { lua: COUNTERS_SCRIPT });
    this.#commands = this.#client as unknown as BudgetCommands;
  }

  async acquire(request: AcquireRequest): Promise<AcquireResult> {
    const limits = request.scopes.flatMap((scope) => [scope.limitNanoUsd ?? -1, scope.maxInFlight ?? -1]);
    const reply = await this.#timed(
      this.#commands.budgetAcquire(
        request.scopes.length * 2,
        ...this.#keys(request.scopes),
        request.leaseId,
        request.amountNanoUsd,
        Math.ceil(request.ttlMs),
        ...limits,
      ),
    );
    if (reply[0] === 'ok') return { granted: true };
    const [reason, index, spent, reserved, inFlight] = reply as [string, number, number, number, number];
    return {
      granted: false,
      reason: reason === 'spend' ? 'spend' : 'in_flight',
      scopeIndex: index - 1,
      counters: {
        spentNanoUsd: Number(spent),
        reservedNanoUsd: Number(reserved),
        inFlight: Number(inFlight),
      },
    };
  }

  async settle(leaseId: string, scopes: readonly StoredScope[], actualNanoUsd: number): Promise<boolean> {
    const held = await this.#timed(
      this.#commands.budgetSettle(
        scopes.length * 2 + 1,
        ...this.#keys(scopes),
        `${this.prefix}${scopes[0]?.key ?? ''}:settled`,
        leaseId,
        actualNanoUsd,
      ),
    );
    return held === 1;
  }

  async renew(
    leases: readonly { leaseId: string; scopes: readonly StoredScope[] }[],
    ttlMs: number,
  ): Promise<string[]> {
    const replies = await this.#timed(
      Promise.all(
        leases.map(({ leaseId, scopes }) =>
          this.#commands.budgetRenew(scopes.length * 2, ...this.#keys(scopes), leaseId, Math.ceil(ttlMs)),
        ),
      ),
    );
    return leases.flatMap(({ leaseId }, index) => (replies[index] === 1 ? [] : [leaseId]));
  }

  async counters(scopes: readonly StoredScope[]): Promise<ScopeCounters[]> {
    const rows = await this.#timed(this.#commands.budgetCounters(scopes.length * 2, ...this.#keys(scopes)));
    return rows.map(([spent, reserved, inFlight]) => ({
      spentNanoUsd: Number(spent),
      reservedNanoUsd: Number(reserved),
      inFlight: Number(inFlight),
    }));
  }

  /** The Redis keys of a scope: its state hash and its lease set. */
  keysOf(scope: StoredScope): { state: string; leases: string } {
    return { state: `${this.prefix}${scope.key}:state`, leases: `${this.prefix}${scope.key}:leases` };
  }

  /** Closes the connection when this store opened it; a given client is left open. */
  async close(): Promise<void> {
    if (this.#owned) await this.#client.quit().catch(() => this.#client.disconnect());
  }

  #keys(scopes: readonly StoredScope[]): string[] {
    return scopes.flatMap((scope) => {
      const keys = this.keysOf(scope);
      return [keys.state, keys.leases];
    });
  }

  /** Our own deadline, since a given client may queue commands while it reconnects. */
  #timed<T>(command: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`Redis did not answer within ${this.#timeoutMs} ms`)),
        this.#timeoutMs,
      );
    });
    return Promise.race([command, deadline]).finally(() => clearTimeout(timer));
  }
}
