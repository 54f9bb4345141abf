import { ChatAdapter, type ChatTransport } from '@switchboard/adapter';
import { type RecordedEndpoint, recordCassette, replayCassette } from '@switchboard/cassette';
import type { CassetteSetting } from './cassette-setting.js';
import { ChatEndpoint } from './chat-endpoint.js';
import { ConfigError } from './config-error.js';
import { PROVIDER_KINDS, type ProviderKind } from './provider-kind.js';

/** What a cassette wraps: the route's real transport, key, adapter setting and endpoint record. */
export interface CassetteRoute {
  readonly transport: ChatTransport;
  readonly apiKey: string;
  readonly disableThinking: boolean;
  readonly endpoint: ChatEndpoint;
}

/**
 * The adapter and endpoint of a route under a cassette. Recording: the real
 * transport, every call written to the cassette with the endpoint record and the
 * pricing. Replaying: the cassette answers (the key is only checked for presence),
 * the endpoint record is the recorded one, and each call is priced as it was
 * recorded (today's prices with `reprice`).
 */
export function cassetteResolution(
  cassette: CassetteSetting,
  route: CassetteRoute,
): { client: ChatAdapter; endpoint: ChatEndpoint } {
  try {
    return wrapped(cassette, route);
  } catch (error) {
    // A cassette that cannot be read, or a folder that cannot be recorded to, is bad input: say where it came from.
    if (
      error instanceof Error &&
      (error.name === 'CassetteFormatError' || error.name === 'CassetteSecretError')
    ) {
      throw new ConfigError(`${cassette.source}: ${error.message}`, { path: cassette.source, cause: error });
    }
    throw error;
  }
}

function wrapped(
  cassette: CassetteSetting,
  route: CassetteRoute,
): { client: ChatAdapter; endpoint: ChatEndpoint } {
  const { endpoint } = route;
  if (cassette.mode === 'record') {
    const transport = recordCassette(cassette.path, route.transport, {
      apiKey: route.apiKey,
      endpoint: {
        provider: endpoint.provider,
        baseUrl: endpoint.baseUrl,
        thinking: endpoint.thinking,
        // The header keeps the three flat prices; a tiered price's tiers stay in today's book, which replay prices with.
        prices:
          endpoint.prices === null
            ? null
            : {
                cacheHitPerM: endpoint.prices.cacheHitPerM,
                inputPerM: endpoint.prices.inputPerM,
                outputPerM: endpoint.prices.outputPerM,
              },
        pricingModel: endpoint.pricingModel,
      },
      costModel: endpoint,
      // The run and the secrets to remove: the environment resolution read, over this process's own.
      env: { ...process.env, ...cassette.env },
    });
    return {
      client: new ChatAdapter(transport, { disableThinking: route.disableThinking, endpoint }),
      endpoint,
    };
  }
  const replay = replayCassette(cassette.path, {
    mode: cassette.misses ?? 'strict',
    timing: cassette.timing ?? 'fast',
    apiKey: route.apiKey,
    // Resolutions of one process (one per test, say) share the cassette's progress, as they shared it recording.
    progress: 'process',
    ...(cassette.misses === 'passthrough' ? { transport: route.transport } : {}),
  });
  const recorded = recordedEndpoint(replay.endpoint, endpoint);
  const costModel = cassette.reprice === true ? endpoint : replay.costModel(endpoint);
  return {
    client: new ChatAdapter(replay, { disableThinking: route.disableThinking, endpoint: costModel }),
    endpoint: recorded,
  };
}

/** The endpoint record a cassette's header carries, priced with today's book for anything new; else `today`. */
function recordedEndpoint(header: RecordedEndpoint | null, today: ChatEndpoint): ChatEndpoint {
  // The header is file content: only a known provider kind and well-typed fields are taken from it.
  if (header === null || !PROVIDER_KINDS.includes(header.provider as ProviderKind)) return today;
  return new ChatEndpoint({
    provider: header.provider as ProviderKind,
    baseUrl: String(header.baseUrl),
    thinking: header.thinking === true,
    prices: (header.prices as ChatEndpoint['prices']) ?? null,
    pricingModel: typeof header.pricingModel === 'string' ? header.pricingModel : null,
    priceBook: today.priceBook,
  });
}
