import { describe, expect, it } from 'vitest';
import { proxyFromEnv } from './proxy-from-env.js';

const at = (url: string, env: Record<string, string | undefined>) => proxyFromEnv(new URL(url), env);

describe('proxyFromEnv', () => {
  it('reads https_proxy, HTTPS_PROXY, then the HTTP ones for an https address', () => {
    expect(
      at('https://api.primary.example', { HTTPS_PROXY: 'http://a:1', https_proxy: 'http://b:2' }),
    ).toMatchObject({
      hostname: 'b',
      port: 2,
      variable: 'HTTPS_PROXY',
    });
    expect(at('https://api.primary.example', { HTTP_PROXY: 'http://c:3' })).toMatchObject({
      hostname: 'c',
      variable: 'HTTP_PROXY',
    });
  });

  it('never reads HTTPS_PROXY for an http address', () => {
    expect(at('http://127.0.0.1:8080', { HTTPS_PROXY: 'http://a:1' })).toBeNull();
  });

  it('takes the default ports, and Basic credentials from the address, decoded', () => {
    expect(at('http://h', { HTTP_PROXY: 'https://user:p%3Ass@proxy.internal' })).toEqual({
      protocol: 'https:',
      hostname: 'proxy.internal',
      port: 443,
      authorization: `Basic ${Buffer.from('user:p:ss').toString('base64')}`,
      variable: 'HTTP_PROXY',
    });
    expect(at('http://h', { HTTP_PROXY: 'proxy.internal' })).toMatchObject({ protocol: 'http:', port: 80 });
  });

  it.each([
    ['api.primary.example', 'https://api.primary.example', true],
    ['API.Primary.Example', 'https://api.primary.example', true],
    ['primary.example', 'https://api.primary.example', false],
    ['.primary.example', 'https://api.primary.example', true],
    ['*.primary.example', 'https://api.primary.example', true],
    ['.primary.example', 'https://primary.example', false],
    ['api.primary.example:443', 'https://api.primary.example', true],
    ['api.primary.example:8443', 'https://api.primary.example', false],
    ['[::1]', 'http://[::1]:8080', true],
    ['other.example,,api.primary.example', 'https://api.primary.example', true],
    ['*', 'https://anything.example', true],
  ])('NO_PROXY %s for %s: direct %s', (noProxy, url, direct) => {
    const proxy = at(url, { HTTPS_PROXY: 'http://p:1', HTTP_PROXY: 'http://p:1', no_proxy: noProxy });
    expect(proxy === null).toBe(direct);
  });

  it('refuses an address that does not parse without echoing it', () => {
    expect(() => at('http://h', { HTTP_PROXY: 'http://[bad:secret' })).toThrow(
      /^HTTP_PROXY is not a proxy address \(an http:\/\/ or https:\/\/ URL\)$/,
    );
  });
});
