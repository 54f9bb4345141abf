/**
 * Which platform the emulator plays: `primary` (unversioned routes, thinking
 * switched by `thinking`, `reasoning_content`) or `gateway` (routes under
 * `/api/v1`, OpenAI-style usage with `cost`, `reasoning` + `reasoning_details`).
 */
export type EmulatorFlavor = 'primary' | 'gateway';

/** The flavours, for validating options. */
export const EMULATOR_FLAVORS: readonly EmulatorFlavor[] = Object.freeze(['primary', 'gateway']);

/** The path every route of a flavour lives under: none for primary, `/api/v1` for the gateway. */
export function basePathOf(flavor: EmulatorFlavor): string {
  return flavor === 'gateway' ? '/api/v1' : '';
}
