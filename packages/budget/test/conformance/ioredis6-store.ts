// A RedisBudgetStore over a caller's ioredis 6 client (the `ioredis6` alias), made from JSON
// options (the url and the prefix), for the kit's worker processes: a client cannot cross a
// process boundary.
import { Redis } from 'ioredis6';
import { RedisBudgetStore } from '../../src/redis-store.js';

export interface Ioredis6StoreOptions {
  readonly url: string;
  readonly prefix: string;
}

/** The store and its own ioredis 6 client, which `close()` disconnects. */
export class Ioredis6RedisBudgetStore extends RedisBudgetStore {
  readonly #redis: Redis;

  constructor(options: Ioredis6StoreOptions) {
    // Fail fast while the server is away, as a store from a url does; ioredis 6's defaults otherwise
    // (RESP3 through HELLO 3, its reply mapping 'legacy').
    const redis = new Redis(options.url, { maxRetriesPerRequest: 1 });
    super({ client: redis, prefix: options.prefix });
    this.#redis = redis;
  }

  override async close(): Promise<void> {
    await super.close();
    this.#redis.disconnect();
  }
}
