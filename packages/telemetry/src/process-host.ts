import { hostname } from 'node:os';

let host: string | undefined;

/** This process's host name (`os.hostname()`, read once), `unknown` when it cannot be read. */
export function processHost(): string {
  if (host === undefined) {
    try {
      host = hostname() || 'unknown';
    } catch {
      host = 'unknown';
    }
  }
  return host;
}
