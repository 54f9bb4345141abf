import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

/** A new raw call's id (`CallRecord.callId`): a random UUID, made when the call starts. */
export function newCallId(): string {
  return randomUUID();
}

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
