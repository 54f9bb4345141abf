import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

/** A new raw call's id (`CallRecord.callId`): a random UUID, made when the call starts. */
export function newCallId(): string {
  return randomUUID();
}

let host: string | undefined;

/**
 * This process's host name, read once: `SWITCHBOARD_HOST` when set (a name of the machine's role
 * in a fleet, or of a container whose host name is random; at most 256 characters used), else
 * `os.hostname()`; `unknown` when neither can be read.
 */
export function processHost(): string {
  if (host === undefined) {
    try {
      const named = process.env.SWITCHBOARD_HOST?.trim();
      host = named ? named.slice(0, 256) : hostname() || 'unknown';
    } catch {
      host = 'unknown';
    }
  }
  return host;
}
