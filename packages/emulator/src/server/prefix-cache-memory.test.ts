import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { postChat, user } from '../../test/support/test-support.js';
import { startEmulator } from './start-emulator.js';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** The JS heap after a full collection. */
function heapAfterGc(): number {
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa'];

/** A prompt of about 512 KiB of short words and numbers, different from every other from its first block. */
function largePrompt(index: number): string {
  const parts = [`prompt ${index}`];
  let length = 0;
  for (let word = 0; length < 512 * 1024; word += 1) {
    const part = `${WORDS[(word * 7 + index) % WORDS.length]} ${word % 1000}`;
    parts.push(part);
    length += part.length + 1;
  }
  return parts.join(' ');
}

describe('the prompt-prefix cache under large distinct prompts', () => {
  it('holds at most maxCacheBytes (32 MiB by default) over 64 prompts of 512 KiB, and the heap with it', async () => {
    // Only the cache is left to grow: the recorded bodies are kept small, the answers one token.
    const emulator = await startEmulator({ maxRecordedBytes: 1024 * 1024, answerTokens: 1 });
    try {
      const before = heapAfterGc();
      let peak = 0;
      for (let index = 0; index < 64; index += 1) {
        const reply = await postChat(emulator.url, {
          model: 'primary-flash',
          thinking: { type: 'disabled' },
          messages: [user(largePrompt(index))],
        });
        expect(reply.status).toBe(200);
        expect(emulator.cacheBytes).toBeLessThanOrEqual(32 * 1024 * 1024);
        if (index % 16 === 15) peak = Math.max(peak, heapAfterGc() - before);
      }
      // The count is an upper bound of what the cache holds on the heap (about half of it is). Without the
      // bound the heap grew 6.6 MB a prompt: the emulator died under a 256 MiB heap after 48.
      expect(peak).toBeLessThan(48 * 1024 * 1024);
      // Each prompt is about 27,000 blocks; 32 MiB of counted blocks hold about four of them.
      expect(emulator.cacheBytes).toBeGreaterThan(16 * 1024 * 1024);
      // The newest prompt is still cached: sent again, it hits.
      const again = await postChat(emulator.url, {
        model: 'primary-flash',
        thinking: { type: 'disabled' },
        messages: [user(largePrompt(63))],
      });
      expect(again.json.usage.prompt_cache_hit_tokens).toBeGreaterThan(100_000);
    } finally {
      await emulator.close();
    }
  }, 120_000);
});
