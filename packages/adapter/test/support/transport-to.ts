import type { Emulator } from '@switchboard/emulator';
import type { TransportRequest } from '../../src/index.js';
import { WIRE_TRANSPORTS, type WireTransportCase, type WireTransportOptions } from './wire-transports.js';

/** A transport to the emulator with short backoff waits, so retry tests stay fast (FetchTransport unless `wire` says). */
export function transportTo(
  emulator: Emulator,
  apiKey: string,
  options: Partial<WireTransportOptions> = {},
  wire: WireTransportCase = WIRE_TRANSPORTS[0] as WireTransportCase,
) {
  return wire.make({ apiKey, baseUrl: emulator.url, retryBackoffSeconds: 0.01, ...options });
}

/** The chat requests the emulator received. */
export function chatRequests(emulator: Emulator): number {
  return emulator.requests.filter((request) => request.path === '/chat/completions').length;
}

/** A one-question request for `primary-flash`, as the adapter would hand it over. */
export function transportRequest(question: string, timeoutSeconds = 10): TransportRequest {
  return {
    model: 'primary-flash',
    messages: [{ role: 'user', content: question }],
    tools: undefined,
    timeoutSeconds,
    extraBody: {},
  };
}
