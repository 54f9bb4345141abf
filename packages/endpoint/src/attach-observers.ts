import type { CallObserver, ObservedEndpoint } from '@switchboard/adapter';
import type { PriceBook } from '@switchboard/prices';
import type { ResolvedChatEndpoint } from './resolved-chat-endpoint.js';
import type { SwitchboardConfig } from './switchboard-config.js';

/** The `observers` option checked: an array (each observer is checked by the adapter), or none. */
export function checkObservers(observers: unknown): readonly CallObserver[] {
  if (observers === undefined || observers === null) return [];
  if (!Array.isArray(observers)) {
    throw new TypeError('options.observers must be an array of CallObserver objects');
  }
  return observers;
}

/** An observer that prices with a book it is handed (a budget of `@switchboard/budget`). */
interface PriceBookTaker {
  adoptPriceBook(book: PriceBook): unknown;
}

/**
 * Adds `observers` to the adapter of an adapter route (rules 4–6), so a budget or a
 * meter sees its every attempt and raw call, and those of its `bounded` copies and
 * `forRole` views. Each observer with a `withEndpoint` hook is told the endpoint first
 * and the observer it returns is attached, so journals and spans name the endpoint.
 * An observer that takes a price book (a budget) is handed the endpoint's, so it
 * reserves with the prices the calls are costed with (table, code and configuration
 * entries). The override and scripted routes are left alone: the override is the
 * caller's own client (not ours to change), and a scripted client makes no raw call,
 * so there is nothing to reserve, settle or record.
 */
export function attachObservers(
  resolved: ResolvedChatEndpoint,
  observers: readonly CallObserver[],
  config: SwitchboardConfig = {},
): ResolvedChatEndpoint {
  if (resolved.rule === 'override' || resolved.rule === 'scripted') return resolved;
  if (observers.length === 0) return resolved;
  const endpoint = observedEndpoint(resolved, config);
  const book = resolved.endpoint.priceBook;
  for (const observer of observers) {
    if (book !== null && typeof (observer as Partial<PriceBookTaker>).adoptPriceBook === 'function') {
      (observer as PriceBookTaker).adoptPriceBook(book);
    }
    const attached = typeof observer.withEndpoint === 'function' ? observer.withEndpoint(endpoint) : observer;
    resolved.client.observe(attached ?? observer);
  }
  return resolved;
}

/** The endpoint as observers learn it: the record's provider, address and thinking, never the key. */
function observedEndpoint(resolved: ResolvedChatEndpoint, config: SwitchboardConfig): ObservedEndpoint {
  const { provider, baseUrl, thinking } = resolved.endpoint;
  return Object.freeze({
    provider,
    baseUrl,
    thinking,
    providerName: configuredProviderName(config, provider),
  });
}

// `[telemetry] provider_name`: one name, or a table by provider kind.
function configuredProviderName(config: SwitchboardConfig, provider: string): string | null {
  const named = config.telemetry?.provider_name;
  if (typeof named === 'string') return named;
  if (typeof named !== 'object' || named === null) return null;
  const byKind = (named as Record<string, unknown>)[provider];
  return typeof byKind === 'string' ? byKind : null;
}
