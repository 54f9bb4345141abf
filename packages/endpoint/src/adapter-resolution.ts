import { ChatAdapter } from '@switchboard/adapter';
import type { PriceBook } from '@switchboard/prices';
import { cassetteResolution } from './cassette-resolution.js';
import type { CassetteSetting } from './cassette-setting.js';
import { ChatEndpoint } from './chat-endpoint.js';
import type { Environment } from './environment.js';
import type { ProviderKind } from './provider-kind.js';
import type { AdapterResolvedChatEndpoint, AdapterRule } from './resolved-chat-endpoint.js';
import { routeTransport } from './route-transport.js';

/** What an adapter route (rules 4, 5, 6) is built from. */
export interface AdapterRouteInit {
  rule: AdapterRule;
  provider: Exclude<ProviderKind, 'scripted'>;
  /** A normalised address (see `parseBaseUrl`). */
  baseUrl: string;
  /** `''` sends no credentials. */
  apiKey: string;
  /** The record's `thinking`. */
  thinking: boolean;
  /** Whether the adapter sends `thinking: {type: 'disabled'}`: `!thinking` in rules 4 and 5, false in rule 6. */
  disableThinking: boolean;
  /** The pricing model: the detector model (resolution rule 3). */
  model: string;
  /** The book each call is priced with, by its own model. */
  priceBook: PriceBook;
  /** A cassette to record the route's calls to, or replay them from; null: none. */
  cassette: CassetteSetting | null;
  /** The resolution's environment, where the transport reads its proxy settings. */
  environment: Environment;
}

/**
 * The one builder of rules 4–6: a record with the pricing model's prices (now, from the
 * book), and a `ChatAdapter` costed by it, each call by its own model, over the route's
 * transport (`routeTransport`: `NodeTransport` in Node). Under a cassette
 * the adapter's transport records to it or replays from it (see `cassetteResolution`).
 */
export function adapterResolution(init: AdapterRouteInit): AdapterResolvedChatEndpoint {
  const endpoint = new ChatEndpoint({
    provider: init.provider,
    baseUrl: init.baseUrl,
    thinking: init.thinking,
    prices: init.priceBook.priceOf(init.model)?.prices ?? null,
    pricingModel: init.model,
    priceBook: init.priceBook,
  });
  const transport = routeTransport(init);
  if (init.cassette !== null) {
    const wrapped = cassetteResolution(init.cassette, {
      transport,
      apiKey: init.apiKey,
      disableThinking: init.disableThinking,
      endpoint,
    });
    return { rule: init.rule, ...wrapped };
  }
  return {
    rule: init.rule,
    client: new ChatAdapter(transport, { disableThinking: init.disableThinking, endpoint }),
    endpoint,
  };
}
