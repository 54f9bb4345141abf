interface CacheNode {
  readonly children: Map<string, CacheNode>;
}

/**
 * A per-model prompt prefix cache. Prompts are cut into blocks of
 * `blockTokens` tokens and stored in a trie; a later prompt's cache hit is the
 * number of tokens in its leading blocks that match a stored prompt's leading
 * blocks, so hits are always a multiple of the block size and a trailing
 * partial block never hits.
 */
export class PrefixCache {
  /** Tokens per cache block; hits are rounded down to a multiple of it. */
  readonly blockTokens: number;
  readonly #roots = new Map<string, CacheNode>();
  readonly #maxNodes: number;
  #nodes = 0;

  /**
   * @param blockTokens tokens per block (a positive integer; 1 caches exact tokens)
   * @param maxNodes blocks kept in all before the cache is emptied, to bound memory
   */
  constructor(blockTokens = 4, maxNodes = 1_000_000) {
    if (!Number.isInteger(blockTokens) || blockTokens < 1) {
      throw new RangeError(`cacheBlockTokens must be a positive integer, got ${String(blockTokens)}`);
    }
    this.blockTokens = blockTokens;
    this.#maxNodes = maxNodes;
  }

  /** The cached prefix length of `tokens` for `model`, without storing anything. */
  lookup(model: string, tokens: readonly string[]): number {
    let node = this.#roots.get(model);
    let blocks = 0;
    for (const key of this.#blocks(tokens)) {
      node = node?.children.get(key);
      if (node === undefined) break;
      blocks += 1;
    }
    return blocks * this.blockTokens;
  }

  /** Returns the cached prefix length of `tokens` for `model`, then stores `tokens`. */
  lookupAndStore(model: string, tokens: readonly string[]): number {
    const hits = this.lookup(model, tokens);
    this.#store(model, tokens);
    return hits;
  }

  /** Forgets every stored prompt. */
  clear(): void {
    this.#roots.clear();
    this.#nodes = 0;
  }

  #store(model: string, tokens: readonly string[]): void {
    let node: CacheNode | undefined = this.#roots.get(model);
    if (node === undefined) {
      node = { children: new Map() };
      this.#roots.set(model, node);
    }
    for (const key of this.#blocks(tokens)) {
      let child: CacheNode | undefined = node.children.get(key);
      if (child === undefined) {
        if (this.#nodes >= this.#maxNodes) {
          this.clear();
          this.#store(model, tokens);
          return;
        }
        child = { children: new Map() };
        node.children.set(key, child);
        this.#nodes += 1;
      }
      node = child;
    }
  }

  *#blocks(tokens: readonly string[]): Generator<string> {
    for (let start = 0; start + this.blockTokens <= tokens.length; start += this.blockTokens) {
      yield tokens.slice(start, start + this.blockTokens).join('\u0000');
    }
  }
}
