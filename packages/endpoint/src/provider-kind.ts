/** The kind of an endpoint (spec 2.2). A classification, not a state. */
export type ProviderKind = 'primary' | 'gateway' | 'custom' | 'scripted';

/** Every {@link ProviderKind}, in the order the spec lists them. */
export const PROVIDER_KINDS: readonly ProviderKind[] = Object.freeze([
  'primary',
  'gateway',
  'custom',
  'scripted',
]);
