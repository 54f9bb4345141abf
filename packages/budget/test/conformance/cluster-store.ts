// A RedisBudgetStore over an ioredis Cluster client, made from JSON options (the nodes and
// the prefix), for the kit's worker processes: a client cannot cross a process boundary.
import { Cluster } from 'ioredis';
import { RedisBudgetStore } from '../../src/redis-store.js';

export interface ClusterStoreOptions {
  readonly nodes: readonly { readonly host: string; readonly port: number }[];
  readonly prefix: string;
}

/** The store and its own Cluster client, which `close()` disconnects. */
export class ClusterRedisBudgetStore extends RedisBudgetStore {
  readonly #cluster: Cluster;

  constructor(options: ClusterStoreOptions) {
    const cluster = new Cluster(
      options.nodes.map((node) => ({ ...node })),
      {
        // Fail fast while nodes are away, as a store from a url does. The cluster's own queue stays on (a
        // command waits for the cluster to be ready), so a command the store gave up on may still be sent
        // once it is: its error says so (not ranNothing), and the budget queues a release for it.
        redisOptions: { maxRetriesPerRequest: 1, commandTimeout: 2000 },
        clusterRetryStrategy: (times) => Math.min(100 * times, 1000),
      },
    );
    super({ client: cluster, prefix: options.prefix });
    this.#cluster = cluster;
  }

  override async close(): Promise<void> {
    await super.close();
    this.#cluster.disconnect();
  }
}
