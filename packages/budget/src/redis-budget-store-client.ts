/**
 * What a {@link RedisBudgetStore} uses of a caller's `ioredis` client: a `Redis` or a
 * `Cluster` of ioredis 5 or 6, or of another copy of either. Written out rather than
 * imported, since ioredis's classes carry private members: the class of one version (or
 * one copy) is never assignable to another's, whatever the caller installed.
 */
export type RedisBudgetStoreClient = RedisConnectionClient | RedisClusterClient;

/** Parts of both kinds of client. */
interface RedisClientBase {
  /** `true` on a `Cluster`. */
  readonly isCluster?: boolean | undefined;
  /** Makes each budget script a command of the client (run with EVALSHA, its text sent once). */
  defineCommand(name: string, definition: { lua: string }): unknown;
  /** Connection events (`error`, `ready`, `close`): the store listens, never emits. */
  on(event: string, listener: (...args: unknown[]) => void): unknown;
}

/** One connection (`new Redis(...)`). */
export interface RedisConnectionClient extends RedisClientBase {
  readonly options: {
    readonly host?: string | undefined;
    readonly port?: number | undefined;
    readonly path?: string | undefined;
    readonly username?: string | undefined;
    readonly password?: string | undefined;
  };
  /** `INFO cluster`: a node of a Redis Cluster is refused as a misconfiguration. */
  info(section: string): Promise<string>;
  /** `CONFIG GET maxmemory-policy`: a policy that can evict the budget's keys is warned about. */
  config(subcommand: 'GET', parameter: string): Promise<unknown>;
}

/** A Redis Cluster (`new Cluster(...)`). */
export interface RedisClusterClient extends RedisClientBase {
  readonly options: {
    readonly redisOptions?:
      | { readonly username?: string | undefined; readonly password?: string | undefined }
      | undefined;
  };
  /** Each master's connection, asked `CONFIG GET maxmemory-policy`. */
  nodes(role: 'master'): readonly { config(subcommand: 'GET', parameter: string): Promise<unknown> }[];
}
