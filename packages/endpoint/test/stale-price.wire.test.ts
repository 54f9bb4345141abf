import type { CallRecord, ChatMessage } from '@switchboard/adapter';
import { STALE_PRICE_WARNING } from '@switchboard/prices';
import { closeTestEmulators, startTestEmulator } from '@switchboard/test-support';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isAdapterResolution, parseConfig, resolveChatEndpoint } from '../src/index.js';

// A stale price on the wire, in a file of its own: the warning is said once per model per
// process (per test file here), so a call in another test priced from an entry that has
// meanwhile gone stale (every shipped entry does, 90 days after its checked date) would
// already have said it, and this test would then depend on the calendar and on test order.

const KEY = 'stale-price-wire-key-7c2e';
const short: ChatMessage[] = [{ role: 'user', content: 'Which tests cover the release branch?' }];

afterEach(closeTestEmulators);

function onlyCall(calls: readonly CallRecord[]): CallRecord {
  expect(calls).toHaveLength(1);
  return calls[0] as CallRecord;
}

describe('a stale price through resolveChatEndpoint', () => {
  it('warns once, with SWITCHBOARD_STALE_PRICE, when [pricing] stale_after_days has passed since checked_at', async () => {
    const emulator = await startTestEmulator({ key: KEY });
    const warnings: string[] = [];
    const spy = vi.spyOn(process, 'emitWarning').mockImplementation(((
      message: string,
      options?: { code?: string },
    ) => {
      if (options?.code === STALE_PRICE_WARNING) warnings.push(message);
    }) as typeof process.emitWarning);
    try {
      const config = parseConfig({
        pricing: { stale_after_days: 30 },
        prices: {
          'primary-v4-pro': {
            cache_hit_per_m: 0.044,
            input_per_m: 1.32,
            output_per_m: 3.96,
            checked_at: '2026-01-01',
          },
        },
      });
      const resolved = resolveChatEndpoint(config, {
        env: { PRIMARY_API_KEY: KEY, PRIMARY_BASE_URL: emulator.url },
      });
      if (!isAdapterResolution(resolved)) throw new Error('expected an adapter route');
      const first = onlyCall(
        (await resolved.client.complete({ model: 'primary-v4-pro', messages: short })).calls,
      );
      await resolved.client.complete({ model: 'primary-v4-pro', messages: short });
      expect(first.priceCheckedAt).toBe('2026-01-01');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(
        /^the price of "primary-v4-pro" was last checked 2026-01-01, \d+ days before this call \(stale after 30\)/,
      );
    } finally {
      spy.mockRestore();
    }
  });
});
