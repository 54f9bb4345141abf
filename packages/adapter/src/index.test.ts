import { describe, expect, it } from 'vitest';
import * as api from './index.js';

describe('@switchboard/adapter public surface', () => {
  it('exports the contract names', () => {
    for (const name of ['ChatAdapter', 'OpenAITransport', 'ChatError', 'ModelRejectedError'] as const) {
      expect(api[name].name).toBe(name);
    }
    expect(typeof api.chatResponseFromMessage).toBe('function');
    expect(typeof api.toAssistantMessage).toBe('function');
    expect(Object.getPrototypeOf(api.ModelRejectedError)).toBe(api.ChatError);
  });
});
