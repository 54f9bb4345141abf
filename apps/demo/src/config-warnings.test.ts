import { describe, expect, it } from 'vitest';
import { configWarnings } from './config-warnings.js';

describe('configWarnings', () => {
  it('suggests the nearest known key for a typo inside models', () => {
    expect(configWarnings({ models: { thinkng: true, chat_base_ur: 'x', Judge: 'y' } })).toEqual([
      'models.thinkng: unknown key, did you mean "thinking"?',
      'models.chat_base_ur: unknown key, did you mean "chat_base_url"?',
      'models.Judge: unknown key, did you mean "judge"?',
    ]);
  });

  it('lists the known keys when nothing is near', () => {
    expect(configWarnings({ models: { temperature: 1 } })).toEqual([
      'models.temperature: unknown key, known: chat_base_url, chat_api_key_env, thinking, hunter, judge',
    ]);
  });

  it('flags models keys at the top level and leaves other sections alone', () => {
    expect(configWarnings({ thinking: true, scan: { depth: 2 }, models: { hunter: 'x' } })).toEqual([
      'thinking: a models key outside [models]; did you mean models.thinking?',
    ]);
    expect(configWarnings(null)).toEqual([]);
  });
});
