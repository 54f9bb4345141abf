import { GATEWAY_PRICES } from '../gateway/gateway-prices.js';
import type { BilledRequest, EmulatorBill } from './bill-types.js';

/** A place in the bill, taken when a request arrives and filled when its fate is known. */
export interface BillSlot {
  /** Fills the slot (once; later calls are ignored). */
  fill(entry: Omit<BilledRequest, 'costNanoUsd'>): void;
}

/**
 * The bill of one running emulator: every chat-completion request answered,
 * in arrival order. Unlike the recorded requests it is never capped (it is a
 * test tool: one small entry per request) until `clear()`.
 */
export class BillBook {
  #slots: { entry: BilledRequest | null }[] = [];

  /** Takes the next slot; a slot taken before a `clear()` fills nothing. */
  open(): BillSlot {
    const slot: { entry: BilledRequest | null } = { entry: null };
    this.#slots.push(slot);
    return {
      fill(entry) {
        if (slot.entry !== null) return;
        slot.entry = Object.freeze({
          ...entry,
          usage: Object.freeze({ ...entry.usage }),
          costNanoUsd: costNanoUsdOf(entry.model, entry.usage),
        });
      },
    };
  }

  /** The filled entries and their total. */
  snapshot(): EmulatorBill {
    const requests: BilledRequest[] = [];
    let totalNanoUsd = 0;
    for (const slot of this.#slots) {
      if (slot.entry === null) continue;
      requests.push(slot.entry);
      totalNanoUsd += slot.entry.costNanoUsd;
    }
    return Object.freeze({ totalNanoUsd, requests: Object.freeze(requests) });
  }

  /** Forgets every entry, and the slots of requests still in flight. */
  clear(): void {
    this.#slots = [];
  }
}

/**
 * The cost of a usage at the shipped price table's prices for `model`, in whole
 * nano-dollars, by the cost rule of `@switchboard/prices` (`costOf`, then
 * `nanoUsdOf`): `(hit × cache-hit price + miss × input price + completion ×
 * output price) / 1e6` USD, rounded to the nearest nano-dollar; 0 for a model
 * without a price. The figures are the emulator's copy of the table
 * (`GATEWAY_PRICES`; the emulator depends on no other package), which a test
 * holds equal to the shipped table.
 */
export function costNanoUsdOf(model: string, usage: BilledRequest['usage']): number {
  const price = Object.hasOwn(GATEWAY_PRICES, model) ? GATEWAY_PRICES[model] : undefined;
  if (price === undefined) return 0;
  const usd =
    (usage.prompt_cache_hit_tokens * price.cachedPerMillion +
      usage.prompt_cache_miss_tokens * price.inputPerMillion +
      usage.completion_tokens * price.outputPerMillion) /
    1_000_000;
  return Math.round(usd * 1_000_000_000);
}
