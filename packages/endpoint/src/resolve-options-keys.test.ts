import { describe, expect, it } from 'vitest';
import { explainResolution } from './explain-resolution.js';
import { resolveChatEndpoint } from './resolve-chat-endpoint.js';

describe('unknown option keys of resolveChatEndpoint and explainResolution', () => {
  const env = { PRIMARY_API_KEY: 'sk-test' };

  it('refuses a typo with the nearest known option, before anything resolves', () => {
    const observer = { beforeAttempt: () => undefined };
    // Plain JavaScript: `observer` would otherwise leave the budget unattached without a word.
    expect(() => resolveChatEndpoint({}, { env, observer: [observer] } as never)).toThrow(
      new TypeError('resolveChatEndpoint options: unknown option `observer`; did you mean `observers`?'),
    );
    expect(() => explainResolution({}, { env, allowInsecureHTTP: true } as never)).toThrow(
      'resolveChatEndpoint options: unknown option `allowInsecureHTTP`; did you mean `allowInsecureHttp`?',
    );
  });

  it('ignores case on both sides when it looks for the nearest option', () => {
    // Three edits as written, one when case is ignored: the camelCase options are lowered too.
    expect(() => resolveChatEndpoint({}, { env, onconfigwarnings: () => undefined } as never)).toThrow(
      'resolveChatEndpoint options: unknown option `onconfigwarnings`; did you mean `onConfigWarning`?',
    );
  });

  it('lists the known options when none is near', () => {
    expect(() => resolveChatEndpoint({}, { env, budget: {} } as never)).toThrow(
      'resolveChatEndpoint options: unknown option `budget`; known: `override`, `env`, `observers`, `allowInsecureHttp`, `allowKeyVariable`, `priceBook`, `cassette`, `onConfigWarning`',
    );
  });

  it('accepts every known option, and null or no options', () => {
    expect(resolveChatEndpoint({}, { env, observers: [], allowInsecureHttp: false })).not.toBeNull();
    expect(resolveChatEndpoint({}, null as never)).toBeDefined();
    expect(explainResolution({}, { env }).rule).toBe('primary');
  });
});
