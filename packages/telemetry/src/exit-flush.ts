/** Something holding buffered data that must reach disk before the process ends. */
export interface ExitFlushable {
  /** Writes everything buffered, synchronously. */
  flushSync(): void;
  /** Writes everything buffered. */
  flush(): Promise<void>;
  /** The process is ending: a last synchronous try, then what is left is counted lost and said. */
  closeAtExit(): void;
}

const open = new Set<ExitFlushable>();
const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

function onExit(): void {
  for (const item of [...open]) item.closeAtExit();
}

function onBeforeExit(): void {
  // Starting writes keeps the loop alive; beforeExit comes again once they end, with nothing left to do.
  for (const item of open) void item.flush();
}

function onSignal(signal: NodeJS.Signals): void {
  const ending = process.listenerCount(signal) === 1;
  for (const item of [...open]) {
    if (ending) item.closeAtExit();
    else item.flushSync();
  }
  // Node's default for these signals is to end the process, but only while no
  // listener is set: when ours was the only one, re-raise the signal so the
  // process still ends (with the signal's exit status) as it would have.
  if (ending) {
    uninstall();
    process.kill(process.pid, signal);
  }
}

function install(): void {
  process.on('exit', onExit);
  process.on('beforeExit', onBeforeExit);
  for (const signal of SIGNALS) process.on(signal, onSignal);
}

function uninstall(): void {
  process.off('exit', onExit);
  process.off('beforeExit', onBeforeExit);
  for (const signal of SIGNALS) process.off(signal, onSignal);
}

/** Flushes `item` on exit, beforeExit, SIGINT and SIGTERM until {@link unregisterExitFlush}. */
export function registerExitFlush(item: ExitFlushable): void {
  if (open.size === 0) install();
  open.add(item);
}

/** Stops flushing `item` at exit; the hooks go when the last item does. */
export function unregisterExitFlush(item: ExitFlushable): void {
  if (open.delete(item) && open.size === 0) uninstall();
}
