import { type Environment, readVariable } from './environment.js';

/** The environment variable that, set to `1` or `true`, lets a key go over plain http to any host. */
export const ALLOW_INSECURE_HTTP_ENV = 'SWITCHBOARD_ALLOW_INSECURE_HTTP';

/** Whether a normalised address is on this machine: `localhost`, 127.0.0.0/8 or `::1`. */
export function isLoopbackAddress(address: string): boolean {
  // The URL parser has already written every IPv4 form (127.1, 0x7f.0.0.1) as four decimals.
  const host = new URL(address).hostname;
  return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Whether the code (`allowInsecureHttp`) or the environment ({@link ALLOW_INSECURE_HTTP_ENV}) allows plain http. */
export function insecureHttpAllowed(
  allowInsecureHttp: boolean | undefined,
  environment: Environment,
): boolean {
  if (allowInsecureHttp === true) return true;
  const value = readVariable(environment, ALLOW_INSECURE_HTTP_ENV)?.toLowerCase();
  return value === '1' || value === 'true';
}

/**
 * Why a key may not go to `address`, or null when it may: plain `http://` is for
 * loopback addresses only, unless allowed (the configuration file is
 * untrusted input; the code and the environment belong to whoever runs the pipeline).
 */
export function insecureHttpReason(address: string, allowed: boolean): string | null {
  if (allowed || !address.startsWith('http:') || isLoopbackAddress(address)) return null;
  return (
    `expected an https:// address to send a key to (plain http:// only to a loopback address), got ${JSON.stringify(address)}; ` +
    `to allow it, set ${ALLOW_INSECURE_HTTP_ENV}=1 or pass { allowInsecureHttp: true } to resolveChatEndpoint`
  );
}
