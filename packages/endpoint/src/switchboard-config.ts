/** The `models` section of the configuration (spec 2.4). Other keys are kept as they are. */
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
  [key: string]: unknown;
}

/** One `[prices."model-id"]` entry: USD per million tokens, each a finite number >= 0 (issue 11). */
export interface ModelPriceConfig {
  /** Per million prompt tokens served from the provider's cache. */
  cache_hit_per_m: number;
  /** Per million prompt tokens not served from the cache. */
  input_per_m: number;
  /** Per million output tokens. */
  output_per_m: number;
  [key: string]: unknown;
}

/**
 * The `[telemetry]` section. `provider_name` names the vendor as the OpenTelemetry GenAI
 * conventions list it (`gen_ai.provider.name`): one value for whichever endpoint resolves, or
 * a table by provider kind (`primary`, `gateway`, `custom`). Observers passed to
 * `resolveChatEndpoint` learn it with the endpoint.
 */
export interface TelemetryConfig {
  provider_name?: string | { primary?: string; gateway?: string; custom?: string };
  [key: string]: unknown;
}

/** The configuration this package reads. Sections other than `models`, `prices` and `telemetry` are kept as they are. */
export interface SwitchboardConfig {
  /** Which models to use and where to reach them. */
  models?: ModelsConfig;
  /** Prices of models by id, beside or instead of the built-in table's. */
  prices?: Record<string, ModelPriceConfig>;
  /** How telemetry names the endpoint's vendor. */
  telemetry?: TelemetryConfig;
  [section: string]: unknown;
}
