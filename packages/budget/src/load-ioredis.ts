import { createRequire } from 'node:module';
import type * as Ioredis from 'ioredis';

let loaded: typeof Ioredis | undefined;

/**
 * The `ioredis` module, loaded the first time a Redis store connects by URL: importing
 * this package (and a memory store) never loads it. Synchronous, because a store is made
 * in a constructor; `ioredis` is a CommonJS package, so `require` loads it from either build.
 */
export function loadIoredis(): typeof Ioredis {
  loaded ??= createRequire(import.meta.url)('ioredis') as typeof Ioredis;
  return loaded;
}
