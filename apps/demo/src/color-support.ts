/** Whether one output stream gets ANSI colour: NO_COLOR (non-empty) turns it off, FORCE_COLOR on, else a TTY. */
export function colorSupport(stream: { isTTY?: boolean }, env: Record<string, string | undefined>): boolean {
  if ((env.NO_COLOR ?? '') !== '') return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return !['0', 'false'].includes(force.trim().toLowerCase());
  return stream.isTTY === true;
}
