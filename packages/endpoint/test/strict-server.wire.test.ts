import { ChatError } from '@switchboard/adapter';
import { closeTestEmulators, rejectionOf, startTestEmulator } from '@switchboard/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { isAdapterResolution, resolveChatEndpoint, type SwitchboardConfig } from '../src/index.js';

// A custom endpoint on a strict OpenAI-compatible server, which answers 400 to the `thinking`
// field: the error names the configuration setting that stops sending it, and that setting works.

const KEY = 'strict-wire-key-40b7';

afterEach(closeTestEmulators);

async function customRoute(thinking?: boolean) {
  const emulator = await startTestEmulator({ key: KEY, strictFields: true });
  const config: SwitchboardConfig = {
    models: {
      chat_base_url: emulator.url,
      chat_api_key_env: 'REVIEW_CHAT_KEY',
      ...(thinking === undefined ? {} : { thinking }),
    },
  };
  const resolved = resolveChatEndpoint(config, { env: Object.freeze({ REVIEW_CHAT_KEY: KEY }) });
  if (!isAdapterResolution(resolved)) throw new Error(`expected an adapter route, got ${resolved?.rule}`);
  return { emulator, resolved };
}

describe('a custom endpoint that refuses the thinking field', () => {
  it('fails naming models.thinking, the setting that stops sending it', async () => {
    const { resolved } = await customRoute();
    expect(resolved.endpoint.provider).toBe('custom');

    const error = await rejectionOf(
      resolved.client.complete({ model: 'primary-flash', messages: [{ role: 'user', content: 'hi' }] }),
    );

    expect(ChatError.isInstance(error) && error.kind).toBe('bad_request');
    expect(String((error as Error).message)).toMatch(
      /does not accept the "thinking" field.*set thinking = true under \[models\] in switchboard\.toml \(models\.thinking\)/,
    );
  });

  it('answers with models.thinking = true, which leaves the field out', async () => {
    const { emulator, resolved } = await customRoute(true);

    const response = await resolved.client.complete({
      model: 'primary-flash',
      messages: [{ role: 'user', content: 'hi' }],
    });

    expect(response.content).toEqual(expect.any(String));
    expect(emulator.requests[0]?.body).not.toHaveProperty('thinking');
  });
});
