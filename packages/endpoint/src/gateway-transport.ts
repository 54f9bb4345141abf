import { OpenAITransport } from '@switchboard/adapter';
import { GATEWAY_DEFAULT_BASE_URL } from './constants.js';
import { type Environment, readVariable } from './environment.js';

/**
 * The gateway transport, built from the environment (spec 5.4): key
 * `GATEWAY_API_KEY`, address `GATEWAY_BASE_URL` or {@link GATEWAY_DEFAULT_BASE_URL}.
 *
 * @throws {TypeError} from the transport when `GATEWAY_BASE_URL` is not an absolute http(s) URL.
 */
export function gatewayTransportFromEnvironment(environment: Environment): OpenAITransport {
  return new OpenAITransport({
    apiKey: readVariable(environment, 'GATEWAY_API_KEY') ?? '',
    baseUrl: readVariable(environment, 'GATEWAY_BASE_URL') ?? GATEWAY_DEFAULT_BASE_URL,
  });
}
