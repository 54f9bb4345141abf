/**
 * Waits for `condition` (an event: a bill recorded, a lease expired, a server ready), checking
 * every `everyMs`; fails naming `what` once `deadlineMs` passed without it. The deadline is
 * generous (a loaded machine at load 15 is still far inside it): it only turns a hang into a
 * readable failure, it never decides an outcome.
 */
export async function until(
  condition: () => boolean | Promise<boolean>,
  what: string,
  { deadlineMs = 60_000, everyMs = 10 }: { deadlineMs?: number; everyMs?: number } = {},
): Promise<void> {
  const deadline = performance.now() + deadlineMs;
  while (!(await condition())) {
    if (performance.now() > deadline) throw new Error(`${what} did not happen within ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
