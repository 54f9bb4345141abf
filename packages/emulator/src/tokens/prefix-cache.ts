interface CacheNode {
  /** The block's tokens joined, or the model id for a model's root. */
  readonly key: string;
  /** Null for a model's root. */
  readonly parent: CacheNode | null;
  /** The bytes this node is counted as (see {@link nodeBytes}). */
  readonly bytes: number;
  /** The blocks stored after this one: none, one (most nodes of a long prompt), or a map of several. */
  children: CacheNode | Map<string, CacheNode> | undefined;
  /** The neighbours in the recency order (a list, so that touching and forgetting a node cost O(1)). */
  older: CacheNode | null;
  newer: CacheNode | null;
}

function childOf(node: CacheNode, key: string): CacheNode | undefined {
  const children = node.children;
  if (children instanceof Map) return children.get(key);
  return children?.key === key ? children : undefined;
}

/** The default bound of a {@link PrefixCache}: 32 MiB. */
export const DEFAULT_CACHE_MAX_BYTES = 32 * 1024 * 1024;

// What one stored block holds beside its text (the node object, and its parent's map when it has
// siblings). Measured on the heap after a collection, a block of four short words takes about 115
// bytes with its text; counted high so that the bound holds for the heap, not only for this count.
const NODE_OVERHEAD_BYTES = 256;

/** The bytes a node of `key` is counted as: its overhead and its text at two bytes a character. */
function nodeBytes(key: string): number {
  return NODE_OVERHEAD_BYTES + 2 * key.length;
}

/**
 * A per-model prompt prefix cache. Prompts are cut into blocks of
 * `blockTokens` tokens and stored in a trie; a later prompt's cache hit is the
 * number of tokens in its leading blocks that match a stored prompt's leading
 * blocks, so hits are always a multiple of the block size and a trailing
 * partial block never hits.
 *
 * The cache holds at most `maxBytes` (default 32 MiB, counted as {@link bytes}):
 * past it the blocks stored or hit longest ago are forgotten first, and a prompt
 * longer than the whole bound keeps only its leading blocks that fit.
 */
export class PrefixCache {
  /** Tokens per cache block; hits are rounded down to a multiple of it. */
  readonly blockTokens: number;
  /** The most bytes the cache holds, counted as {@link bytes}. */
  readonly maxBytes: number;
  readonly #roots = new Map<string, CacheNode>();
  // Every node in a list, least recently stored first. A node is always touched after its children,
  // so the oldest one is a leaf: forgetting it never cuts a stored path in the middle.
  #oldest: CacheNode | null = null;
  #newest: CacheNode | null = null;
  #bytes = 0;

  /**
   * @param blockTokens tokens per block (a positive integer; 1 caches exact tokens)
   * @param maxBytes the most bytes kept (a positive integer; default 32 MiB, `DEFAULT_CACHE_MAX_BYTES`);
   * past it the oldest blocks are forgotten
   */
  constructor(blockTokens = 4, maxBytes = DEFAULT_CACHE_MAX_BYTES) {
    if (!Number.isInteger(blockTokens) || blockTokens < 1) {
      throw new RangeError(`cacheBlockTokens must be a positive integer, got ${String(blockTokens)}`);
    }
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) {
      throw new RangeError(`maxCacheBytes must be a positive integer, got ${String(maxBytes)}`);
    }
    this.blockTokens = blockTokens;
    this.maxBytes = maxBytes;
  }

  /**
   * The bytes the cache holds, as it counts them: per stored block (and per
   * model) a fixed 256 bytes for the structures around it plus two bytes per
   * character of its text. Never more than {@link maxBytes}.
   */
  get bytes(): number {
    return this.#bytes;
  }

  /** The cached prefix length of `tokens` for `model`, without storing anything. */
  lookup(model: string, tokens: readonly string[]): number {
    let node = this.#roots.get(model);
    let blocks = 0;
    for (const key of this.#blocks(tokens)) {
      node = node === undefined ? undefined : childOf(node, key);
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
    this.#oldest = null;
    this.#newest = null;
    this.#bytes = 0;
  }

  #store(model: string, tokens: readonly string[]): void {
    let left = this.maxBytes - nodeBytes(model);
    if (left < 0) return;
    let node = this.#roots.get(model);
    if (node === undefined) {
      node = this.#add(model, null);
      this.#roots.set(model, node);
    }
    const path = [node];
    for (const key of this.#blocks(tokens)) {
      left -= nodeBytes(key);
      if (left < 0) break;
      node = childOf(node, key) ?? this.#add(key, node);
      path.push(node);
    }
    // Leaf first, root last: a parent stays newer than each of its children.
    for (let index = path.length - 1; index >= 0; index -= 1) this.#touch(path[index] as CacheNode);
    // The path itself fits within the bound, so it is never reached here.
    while (this.#bytes > this.maxBytes && this.#oldest !== null) this.#forget(this.#oldest);
  }

  /** Makes `node` the newest in the recency order. */
  #touch(node: CacheNode): void {
    if (this.#newest === node) return;
    this.#unlink(node);
    node.older = this.#newest;
    if (this.#newest !== null) this.#newest.newer = node;
    this.#newest = node;
    this.#oldest ??= node;
  }

  #unlink(node: CacheNode): void {
    if (node.older !== null) node.older.newer = node.newer;
    else if (this.#oldest === node) this.#oldest = node.newer;
    if (node.newer !== null) node.newer.older = node.older;
    else if (this.#newest === node) this.#newest = node.older;
    node.older = null;
    node.newer = null;
  }

  #add(key: string, parent: CacheNode | null): CacheNode {
    const node: CacheNode = {
      key,
      parent,
      bytes: nodeBytes(key),
      children: undefined,
      older: null,
      newer: null,
    };
    if (parent?.children === undefined) {
      if (parent !== null) parent.children = node;
    } else if (parent.children instanceof Map) {
      parent.children.set(key, node);
    } else {
      parent.children = new Map([
        [parent.children.key, parent.children],
        [key, node],
      ]);
    }
    this.#bytes += node.bytes;
    return node;
  }

  #forget(leaf: CacheNode): void {
    this.#unlink(leaf);
    this.#bytes -= leaf.bytes;
    const parent = leaf.parent;
    if (parent === null) {
      this.#roots.delete(leaf.key);
      return;
    }
    const children = parent.children;
    if (children instanceof Map) {
      children.delete(leaf.key);
      if (children.size === 1) parent.children = children.values().next().value;
    } else {
      parent.children = undefined;
    }
  }

  *#blocks(tokens: readonly string[]): Generator<string> {
    for (let start = 0; start + this.blockTokens <= tokens.length; start += this.blockTokens) {
      yield tokens.slice(start, start + this.blockTokens).join('\u0000');
    }
  }
}
