/**
 * One entry of the gateway's `reasoning_details`: a piece of the model's
 * reasoning (`reasoning.text`), a summary of it (`reasoning.summary`) or an
 * opaque encrypted block (`reasoning.encrypted`), often signed. Kept exactly as
 * received, unknown fields included, and replayed unchanged on the next turn.
 */
export interface ReasoningDetail {
  /** `reasoning.text`, `reasoning.summary`, `reasoning.encrypted`, or another kind a provider adds. */
  readonly type?: 'reasoning.text' | 'reasoning.summary' | 'reasoning.encrypted' | (string & {});
  readonly id?: string | null;
  /** The provider's format of the entry, e.g. a model family's. */
  readonly format?: string | null;
  /** Position in the array as the provider numbered it. */
  readonly index?: number;
  /** `reasoning.text`: the reasoning itself. */
  readonly text?: string | null;
  /** `reasoning.summary`: a short summary of the reasoning. */
  readonly summary?: string | null;
  /** `reasoning.encrypted`: the opaque block. */
  readonly data?: string | null;
  /** A signature the provider checks when the entry comes back. */
  readonly signature?: string | null;
  readonly [field: string]: unknown;
}
