/**
 * The `models` section of the configuration. In code, a key not listed here does not compile
 * (`{ models: { thinkng: true } }`); in a file, it is kept and warned about.
 */
export interface ModelsConfig {
  /** An explicit chat endpoint address: an absolute http(s) URL. */
  chat_base_url?: string;
  /** The name of the environment variable holding the key for `chat_base_url` (default `PRIMARY_API_KEY`). */
  chat_api_key_env?: string;
  /** Whether the provider's reasoning mode stays on; default false. */
  thinking?: boolean;
  /** The detector model id; default `DEFAULT_DETECTOR_MODEL`. */
  hunter?: string;
  /** The judge model id; default `DEFAULT_JUDGE_MODEL`. */
  judge?: string;
}

/**
 * One `[[prices."model-id".tiers]]` entry: the prices of the whole call when its billed input
 * tokens (cache hits plus misses) exceed `above_input_tokens`.
 */
export interface ModelPriceTierConfig {
  /** The threshold, a whole number of tokens >= 0; tiers come in ascending order of it. */
  above_input_tokens: number;
  cache_hit_per_m: number;
  input_per_m: number;
  output_per_m: number;
}

/**
 * One `[[prices."model-id".tariffs]]` entry: a dated change of the price, in force from
 * `effective_from` until the next one; while that date is still to come, it is announced.
 */
export interface ModelPriceTariffConfig {
  /** The first instant it is in force: a TOML date (00:00 UTC) or date-time with its offset, or such an ISO string. */
  effective_from: string | Date;
  /** USD per million tokens, each a finite number >= 0; needed unless `cancelled`. */
  cache_hit_per_m?: number;
  input_per_m?: number;
  output_per_m?: number;
  /** Prompt-size tiers of the change, as an entry's. */
  tiers?: ModelPriceTierConfig[];
  /** When the change was last checked: an ISO date. */
  checked_at?: string | Date;
  /** Where it was announced (or called off). */
  source?: string;
  /** The change was called off: never priced; it cancels a change of the same `effective_from`. */
  cancelled?: boolean;
}

/** One `[prices."model-id"]` entry: USD per million tokens, each a finite number >= 0. */
export interface ModelPriceConfig {
  /** Per million prompt tokens served from the provider's cache. */
  cache_hit_per_m: number;
  /** Per million prompt tokens not served from the cache. */
  input_per_m: number;
  /** Per million output tokens. */
  output_per_m: number;
  /** Prompt-size tiers (long-context prices), in ascending order of `above_input_tokens`. */
  tiers?: ModelPriceTierConfig[];
  /** When the price was last checked: an ISO date (`"2026-11-20"`, or a TOML date `2026-11-20`). */
  checked_at?: string | Date;
  /** Where the price was read (kept with `checked_at`; default: the configuration). */
  source?: string;
  /** Dated changes of the price, announced while their `effective_from` is still to come. */
  tariffs?: ModelPriceTariffConfig[];
}

/** The `[pricing]` section: how prices are held to account. */
export interface PricingConfig {
  /**
   * A call priced from an entry checked more than this many days before it warns
   * (`SWITCHBOARD_STALE_PRICE`); default 90; `inf`: never.
   */
  stale_after_days?: number;
}

/**
 * The `[telemetry]` section. `provider_name` names the vendor as the OpenTelemetry GenAI
 * conventions list it (`gen_ai.provider.name`): one value for whichever endpoint resolves, or
 * a table by provider kind (`primary`, `gateway`, `custom`). Observers passed to
 * `resolveChatEndpoint` learn it with the endpoint.
 */
export interface TelemetryConfig {
  provider_name?: string | { primary?: string; gateway?: string; custom?: string };
}

/**
 * The configuration this package reads (`switchboard.toml`, see `loadConfig`). In code, a
 * section or key not listed here does not compile, so a typo is caught where it is written;
 * a file may hold other tools' sections, which are kept as they are (and a typo near a
 * known name is warned about).
 */
export interface SwitchboardConfig {
  /** Which models to use and where to reach them. */
  models?: ModelsConfig;
  /** Prices of models by id, beside or instead of the built-in table's. */
  prices?: Record<string, ModelPriceConfig>;
  /** How old a price may get before calls priced from it warn. */
  pricing?: PricingConfig;
  /** How telemetry names the endpoint's vendor. */
  telemetry?: TelemetryConfig;
}
