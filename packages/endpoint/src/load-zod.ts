import { createRequire } from 'node:module';
import type * as Zod from 'zod';

let loaded: typeof Zod | undefined;

/**
 * `zod`, loaded the first time a configuration is checked: importing this package never
 * loads it. Synchronous, because `parseConfig` is; its CommonJS build is loaded from either
 * of our builds.
 */
export function loadZod(): typeof Zod {
  loaded ??= createRequire(import.meta.url)('zod') as typeof Zod;
  return loaded;
}
