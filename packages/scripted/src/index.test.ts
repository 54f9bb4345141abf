import { describe, expect, it } from 'vitest';
import * as api from './index.js';

describe('@switchboard/scripted public surface', () => {
  it('exports the contract names', () => {
    expect(api.ScriptedChatClient.name).toBe('ScriptedChatClient');
    expect(typeof api.scriptedClient).toBe('function');
    expect([...api.SCRIPTED_FLAGS].sort()).toEqual([
      'dump',
      'dump-only',
      'script',
      'scripted',
      'unsafe',
      'unsafe-snippet',
    ]);
  });
});
