import { createRequire } from 'node:module';
import type * as OpenAIModule from 'openai';

let loaded: typeof OpenAIModule | undefined;

/**
 * The `openai` SDK, loaded the first time a transport is made or an SDK error is mapped:
 * importing this package (for its types, `ChatAdapter` over a stub, `chatResponseFromMessage`)
 * never loads it. Synchronous, because a transport is made in a constructor; the SDK's
 * CommonJS build is loaded from either of our builds, so its client and error classes are
 * always the same copy.
 */
export function loadOpenAI(): typeof OpenAIModule {
  loaded ??= createRequire(import.meta.url)('openai') as typeof OpenAIModule;
  return loaded;
}
