import type { CallRecord } from '@switchboard/adapter';

/**
 * A call record as the telemetry observers read it: the adapter's `CallRecord`
 * (with its reply facts `responseId`, `responseModel`, `finishReason` and its
 * request facts `jsonObject`, `maxTokens`, `temperature`) plus facts other callers
 * may add. Each extra field is optional and used when present.
 */
export interface TelemetryRecord extends CallRecord {
  /** `choices[].finish_reason` of every choice of the reply; wins over `finishReason`. */
  readonly finishReasons?: readonly string[] | null;
  /** A route label the caller's router gave the call. */
  readonly route?: string | null;
}

/** The endpoint a call went to, as journals and reports name it: never a key. */
export interface EndpointInfo {
  /** `primary`, `gateway`, `custom`, `scripted` (or any other provider name). */
  readonly provider: string;
  /** The base address, without credentials. */
  readonly baseUrl: string;
  /** Whether thinking was on for the endpoint. */
  readonly thinking?: boolean;
  /**
   * The vendor as the OpenTelemetry GenAI conventions list it, for `gen_ai.provider.name`
   * (the configuration's `[telemetry] provider_name`), or null.
   */
  readonly providerName?: string | null;
}
