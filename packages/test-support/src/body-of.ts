import type { Emulator } from '@switchboard/emulator';

/** The parsed JSON body the emulator received as request `index` (0-based). */
export function bodyOf(emulator: Emulator, index: number): Record<string, unknown> {
  const body = emulator.requests[index]?.body;
  if (body === null || typeof body !== 'object') throw new Error(`request ${index} has no JSON body`);
  return body as Record<string, unknown>;
}
