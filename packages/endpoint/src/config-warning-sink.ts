import type { ConfigWarning } from './config-warnings.js';

// Configurations whose warnings were already handed to the caller (loadConfig, parseConfigWithWarnings).
const warned = new WeakSet<object>();
// What the default sink has printed in this process: a loop of resolutions warns once.
const emitted = new Set<string>();

/** Notes that `config`'s warnings were handed to the caller, so resolution does not repeat them; returns it. */
export function markWarned<T extends object>(config: T): T {
  warned.add(config);
  return config;
}

/** Whether `config`'s warnings were already handed to the caller. */
export function wasWarned(config: unknown): boolean {
  return typeof config === 'object' && config !== null && warned.has(config);
}

/** The default warning sink: a Node process warning (`SwitchboardConfigWarning`), once per text per process. */
export function emitConfigWarning(text: string, _warning?: ConfigWarning): void {
  if (emitted.has(text)) return;
  emitted.add(text);
  process.emitWarning(text, 'SwitchboardConfigWarning');
}
