import { describe, expect, it } from 'vitest';
import { GATEWAY_DEFAULT_BASE_URL } from './adapter-rules.js';
import { PRIMARY_DEFAULT_BASE_URL } from './primary-base-url.js';
import { providerOf } from './provider-of.js';
import { resolveChatEndpoint } from './resolve-chat-endpoint.js';

describe("providerOf: the vendor by a substring anywhere in the address, primary first (the seed's rule 4)", () => {
  it.each([
    [PRIMARY_DEFAULT_BASE_URL, 'primary'],
    [GATEWAY_DEFAULT_BASE_URL, 'gateway'],
    ['https://my-gateway.internal/api/v1', 'gateway'],
    ['https://primary.gateway.example', 'primary'],
    ['https://gateway.example/primary', 'primary'],
    ['https://my-GATEWAY.internal/Primary', 'primary'],
    ['http://localhost:8080/gateway-to-primary', 'primary'],
    ['https://primary.evil.example', 'primary'],
    ['https://llm.internal.example/gateway/api/v1', 'gateway'],
    ['https://PRIMARY-proxy.corp.test', 'primary'],
    ['http://127.0.0.1:4010', 'custom'],
    ['https://llm.internal.test/v1', 'custom'],
    ['https://prim-ary.example', 'custom'],
  ])('%s is %s', (address, provider) => {
    expect(providerOf(address)).toBe(provider);
  });

  it("classes a configured corporate proxy whose path names the vendor as that vendor, and sends the configured variable's key", () => {
    const resolved = resolveChatEndpoint(
      { models: { chat_base_url: 'https://proxy.corp.test/primary', chat_api_key_env: 'CORP_KEY' } },
      { env: { PRIMARY_API_KEY: 'not-this-one', CORP_KEY: 'corp-key' } },
    );
    expect(resolved?.endpoint.provider).toBe('primary');
    expect(resolved?.rule).toBe('configured');
  });
});
