import type { CallObserver, ChatClient } from '@switchboard/adapter';
import type { PriceBook } from '@switchboard/prices';
import type { CassetteOption } from './cassette-setting.js';
import type { ConfigWarning } from './config-warnings.js';
import type { KeyVariableAllowance } from './key-variable.js';

/** Options of `resolveChatEndpoint` and `explainResolution`. */
export interface ResolveChatEndpointOptions {
  /** A client to use as it is, before every other rule; its endpoint is the scripted record. */
  override?: ChatClient;
  /** Where environment variables are read; default `process.env`. Never mutated. */
  env?: Record<string, string | undefined>;
  /**
   * Told before each attempt and after each raw call of the resolved adapter (rules 4–6), its
   * `bounded` copies and `forRole` views: e.g. a `Budget` of `@switchboard/budget` (which may
   * refuse a call before it is sent) or a meter. Not given to the override or a scripted client,
   * which make no raw call of ours. An observer with a `withEndpoint(endpoint)` hook (a
   * `CallJournal`, `CallMeter` or OpenTelemetry observer) is told the resolved endpoint and
   * the observer it returns is attached. Default none.
   */
  observers?: readonly CallObserver[];
  /**
   * Let a key go over plain `http://` to any host, not only to a loopback address;
   * default false. `SWITCHBOARD_ALLOW_INSECURE_HTTP=1` in the environment does the same.
   */
  allowInsecureHttp?: boolean;
  /**
   * Variable names `models.chat_api_key_env` may name beyond the key-like ones
   * (`isKeyLikeVariable`): a list of names, or a test.
   */
  allowKeyVariable?: KeyVariableAllowance;
  /**
   * Prices from code: a `PriceBook` (the shipped table plus your entries, dated
   * tariffs included). The configuration's `[prices."model-id"]` entries are added
   * on top (they replace entries of the same id). Default: the shipped table.
   */
  priceBook?: PriceBook;
  /**
   * Record the resolved route's calls to a cassette, or replay them from one
   * (`@switchboard/cassette`). No rule changes: the cassette wraps the transport of
   * whichever of rules 4–6 resolved; the override and scripted routes make no raw
   * call and are left alone. Default: `SWITCHBOARD_CASSETTE` (`record` | `replay`)
   * with `SWITCHBOARD_CASSETTE_PATH`, else none.
   */
  cassette?: CassetteOption;
  /**
   * Told each warning about a configuration object passed straight in (an unknown key inside
   * `models`, a models key at the top level, ...), as `loadConfig` tells a file's. Default:
   * `process.emitWarning(text, 'SwitchboardConfigWarning')`, once per text per process. A
   * configuration from `loadConfig` or `parseConfigWithWarnings` is not warned about again.
   */
  onConfigWarning?: (text: string, warning: ConfigWarning) => void;
}
