/** The kind of an endpoint. A classification, not a state. */
export type ProviderKind = 'primary' | 'gateway' | 'custom' | 'scripted';

/** Every {@link ProviderKind}, in the order resolution names them. */
export const PROVIDER_KINDS: readonly ProviderKind[] = Object.freeze([
  'primary',
  'gateway',
  'custom',
  'scripted',
]);
