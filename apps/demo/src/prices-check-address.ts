import { ALLOW_INSECURE_HTTP_ENV, GATEWAY_DEFAULT_BASE_URL, isLoopbackAddress } from '@switchboard/endpoint';
import { BAD_INPUT_EXIT_CODE, CliError } from './cli-error.js';
import type { CliConfig } from './load-config.js';
import { safeText } from './terminal-text.js';

/**
 * The gateway base address `prices check` reads: `--gateway`, else the configured
 * `chat_base_url` when it is a gateway's (the address names `gateway` and not `primary`, as
 * resolution rule 4 tells them apart), else `GATEWAY_BASE_URL`, else the gateway default.
 */
export function gatewayBase(option: string | undefined, loaded: CliConfig, env: Io['env']): string {
  if (option !== undefined) return option;
  const configured = loaded.config.models?.chat_base_url;
  if (configured !== undefined && /gateway/i.test(configured) && !/primary/i.test(configured))
    return configured;
  const fromEnv = env.GATEWAY_BASE_URL?.trim();
  return fromEnv ? fromEnv : GATEWAY_DEFAULT_BASE_URL;
}

type Io = { env: Record<string, string | undefined> };

/**
 * `<base>/models` as a URL; exit 2 for an address that is not http(s), carries
 * credentials (the key comes from GATEWAY_API_KEY, never from an address that gets
 * printed), or would send a key over plain http to another machine.
 */
export function listingUrl(base: string, apiKey: string | undefined, env: Io['env']): URL {
  const bad = (why: string) => new CliError(`--gateway: ${why}`, BAD_INPUT_EXIT_CODE);
  let url: URL;
  try {
    url = new URL(`${base.trim().replace(/\/+$/, '')}/models`);
  } catch {
    throw bad(
      `expected an http(s) address such as https://gateway.example/api/v1, got ${JSON.stringify(safeText(base))}`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw bad(`expected an http(s) address, got ${url.protocol}`);
  if (url.username !== '' || url.password !== '') {
    throw bad('the address carries credentials: give the key in GATEWAY_API_KEY instead');
  }
  const allowed = /^(1|true)$/i.test(env[ALLOW_INSECURE_HTTP_ENV] ?? '');
  if (apiKey && url.protocol === 'http:' && !isLoopbackAddress(url.href) && !allowed) {
    throw bad(
      `a key goes over https only (plain http to a loopback address), got ${url.origin}; to allow it, set ${ALLOW_INSECURE_HTTP_ENV}=1`,
    );
  }
  return url;
}
