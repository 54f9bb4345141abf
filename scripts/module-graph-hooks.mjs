// Module customization hooks for scripts/check-cold-import.mjs: append every
// URL the loader resolves (node: built-ins included) to the log file it names.
import { appendFileSync } from 'node:fs';

let logFile = '';

/** Receives `{ logFile }` from `module.register`. */
export function initialize(data) {
  logFile = data.logFile;
}

/** Resolves as usual, then records the resolved URL. */
export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  appendFileSync(logFile, `${result.url}\n`);
  return result;
}
