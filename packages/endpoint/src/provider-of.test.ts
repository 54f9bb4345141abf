import { describe, expect, it } from 'vitest';
import { GATEWAY_DEFAULT_BASE_URL } from './adapter-rules.js';
import { PRIMARY_DEFAULT_BASE_URL } from './primary-base-url.js';
import { providerOf } from './provider-of.js';
import { resolveChatEndpoint } from './resolve-chat-endpoint.js';

describe('providerOf: the vendor by the host, not by a substring', () => {
  it.each([
    [PRIMARY_DEFAULT_BASE_URL, 'primary'],
    ['https://primary.example', 'primary'],
    ['https://eu.api.primary.example/chat', 'primary'],
    ['https://api.primary.example.', 'primary'],
    [GATEWAY_DEFAULT_BASE_URL, 'gateway'],
    ['https://edge.gateway.example/api/v1', 'gateway'],
    ['https://primary.evil.example', 'custom'],
    ['https://gateway.evil.example/api/v1', 'custom'],
    ['https://notprimary.example', 'custom'],
    ['https://primary.example.evil.test', 'custom'],
    ['https://llm.internal.example/primary', 'custom'],
    ['https://llm.internal.example/gateway/api/v1', 'custom'],
    ['http://127.0.0.1:4010', 'custom'],
  ])('%s is %s', (address, provider) => {
    expect(providerOf(address)).toBe(provider);
  });

  it('classes a configured look-alike address as custom, so it is never taken for the primary vendor', () => {
    const resolved = resolveChatEndpoint(
      { models: { chat_base_url: 'https://primary.evil.example' } },
      { env: { PRIMARY_API_KEY: 'k' } },
    );
    expect(resolved?.endpoint.provider).toBe('custom');
  });
});
