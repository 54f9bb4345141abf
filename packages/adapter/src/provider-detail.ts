/** What a provider said about a failure: its message (with the gateway's `metadata.raw`), code and param. */
export interface ProviderDetail {
  message: string;
  code: unknown;
  param: unknown;
}
