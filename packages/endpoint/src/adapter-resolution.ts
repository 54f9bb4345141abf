import { ChatAdapter, OpenAITransport } from '@switchboard/adapter';
import { priceOf } from '@switchboard/prices';
import { ChatEndpoint } from './chat-endpoint.js';
import type { ProviderKind } from './provider-kind.js';
import type { AdapterResolvedChatEndpoint, AdapterRule } from './resolved-chat-endpoint.js';

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
  /** The pricing model: the detector model (spec "Resolution rules" 3). */
  model: string;
}

/** The one builder of rules 4–6: a record with the pricing model's prices, and a `ChatAdapter` costed by it. */
export function adapterResolution(init: AdapterRouteInit): AdapterResolvedChatEndpoint {
  const endpoint = new ChatEndpoint({
    provider: init.provider,
    baseUrl: init.baseUrl,
    thinking: init.thinking,
    prices: priceOf(init.model),
  });
  const transport = new OpenAITransport({ apiKey: init.apiKey, baseUrl: init.baseUrl });
  return {
    rule: init.rule,
    client: new ChatAdapter(transport, { disableThinking: init.disableThinking, endpoint }),
    endpoint,
  };
}
