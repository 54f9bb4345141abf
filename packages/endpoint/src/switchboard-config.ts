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

/** The configuration this package reads. Sections other than `models` are kept as they are. */
export interface SwitchboardConfig {
  /** Which models to use and where to reach them. */
  models?: ModelsConfig;
  [section: string]: unknown;
}
