import { describe, expect, it } from 'vitest';
import { parseConfigWithWarnings } from './parse-config.js';
import { resolveChatEndpoint } from './resolve-chat-endpoint.js';
import type { SwitchboardConfig } from './switchboard-config.js';

const env = { PRIMARY_API_KEY: 'key' };

describe('SwitchboardConfig', () => {
  describe('in code', () => {
    it('does not compile with an unknown key under models or an unknown section', () => {
      // The package's typecheck fails if any of these directives stops being needed.
      // @ts-expect-error -- `thinkng` is not a models key
      const typo: SwitchboardConfig = { models: { thinkng: true } };
      // @ts-expect-error -- `model` is not a section
      const section: SwitchboardConfig = { model: { hunter: 'primary-flash' } };
      const price: SwitchboardConfig = {
        // @ts-expect-error -- `input_per_mm` is not a price key
        prices: { x: { cache_hit_per_m: 0, input_per_m: 1, input_per_mm: 1 } },
      };
      // @ts-expect-error -- passed straight to resolveChatEndpoint, the literal is checked too
      resolveChatEndpoint({ models: { thinkng: true } }, { env: {}, onConfigWarning: () => {} });
      expect([typo, section, price].every((config) => typeof config === 'object')).toBe(true);
    });
  });

  describe('passed straight to resolveChatEndpoint', () => {
    const typo = () => ({ models: { thinkng: true }, hunter: 'primary-v4-pro' }) as SwitchboardConfig;

    it('gets the warnings a file gets', () => {
      const told: string[] = [];
      resolveChatEndpoint(typo(), { env, onConfigWarning: (text) => told.push(text) });
      expect(told).toEqual([
        'hunter: a models key outside [models]; did you mean models.hunter?',
        'models.thinkng: unknown key, did you mean "thinking"?',
      ]);
    });

    it('gets them also when nothing resolves', () => {
      const told: string[] = [];
      expect(resolveChatEndpoint(typo(), { env: {}, onConfigWarning: (text) => told.push(text) })).toBeNull();
      expect(told).toHaveLength(2);
    });

    it('gets none when an override or a scripted client resolves (the configuration is not read)', () => {
      const told: string[] = [];
      const onConfigWarning = (text: string) => told.push(text);
      resolveChatEndpoint(typo(), { env: { SWITCHBOARD_CLIENT: 'scripted' }, onConfigWarning });
      expect(told).toEqual([]);
    });

    it('is not warned again after parseConfigWithWarnings handed the warnings over', () => {
      const { config, warnings } = parseConfigWithWarnings(typo());
      const told: string[] = [];
      resolveChatEndpoint(config, { env, onConfigWarning: (text) => told.push(text) });
      expect([warnings.length, told.length]).toEqual([2, 0]);
    });

    it('by default, is a process warning once per text per process', async () => {
      const seen: Error[] = [];
      const listener = (warning: Error) => seen.push(warning);
      process.on('warning', listener);
      try {
        const config = { models: { judg: 'x' } } as SwitchboardConfig;
        for (let index = 0; index < 3; index += 1) resolveChatEndpoint(config, { env });
        await new Promise((resolve) => setImmediate(resolve));
      } finally {
        process.off('warning', listener);
      }
      expect(seen.map((warning) => [warning.name, warning.message])).toEqual([
        ['SwitchboardConfigWarning', 'models.judg: unknown key, did you mean "judge"?'],
      ]);
    });
  });
});
