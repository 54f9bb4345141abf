import type { CallRecord } from '@switchboard/adapter';

/**
 * A call record as the telemetry observers read it: the adapter's `CallRecord`
 * plus reply facts it does not carry yet. Each extra field is optional and used
 * when present (the adapter is expected to add them; see the README).
 */
export interface TelemetryRecord extends CallRecord {
  /** The reply's `id` (`chatcmpl-...`). */
  readonly responseId?: string | null;
  /** The model the reply says answered, when it differs from the one sent or is worth recording. */
  readonly responseModel?: string | null;
  /** `choices[].finish_reason` of the reply, or the first choice's alone. */
  readonly finishReasons?: readonly string[] | null;
  readonly finishReason?: string | null;
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
}
