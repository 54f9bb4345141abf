import { describe, expect, it } from 'vitest';
import { validateChatRequest } from './validate-chat-request.js';

const base = { model: 'primary-flash', messages: [{ role: 'user', content: 'hi' }] };

function errorOf(body: unknown): { status: number; error: Record<string, unknown> } {
  const outcome = validateChatRequest(body);
  if (outcome.ok) throw new Error('expected the request to be rejected');
  return {
    status: outcome.error.status,
    error: (outcome.error.body as { error: Record<string, unknown> }).error,
  };
}

describe('validateChatRequest', () => {
  describe('a valid request', () => {
    it('applies the defaults: thinking on, temperature 1, no JSON mode, no logprobs, no cap', () => {
      const outcome = validateChatRequest(base);
      expect(outcome.ok && outcome.request).toMatchObject({
        model: 'primary-flash',
        thinking: true,
        temperature: 1,
        jsonMode: false,
        logprobs: false,
        topLogprobs: 0,
        maxTokens: null,
        toolChoice: 'auto',
        tools: [],
      });
    });

    it('reads thinking disabled, JSON mode, logprobs and max_tokens', () => {
      const outcome = validateChatRequest({
        ...base,
        thinking: { type: 'disabled' },
        temperature: 0,
        response_format: { type: 'json_object' },
        logprobs: true,
        top_logprobs: 1,
        max_tokens: 7,
      });
      expect(outcome.ok && outcome.request).toMatchObject({
        thinking: false,
        temperature: 0,
        jsonMode: true,
        logprobs: true,
        topLogprobs: 1,
        maxTokens: 7,
      });
    });

    it('maps the alias primary-chat to the default model', () => {
      const outcome = validateChatRequest({ ...base, model: 'primary-chat' });
      expect(outcome.ok && outcome.request.model).toBe('primary-flash');
    });
  });

  describe('the model field', () => {
    it('rejects a missing model, naming the field', () => {
      expect(errorOf({ messages: base.messages })).toEqual({
        status: 400,
        error: {
          message: "Missing or invalid field 'model': expected a model id string",
          type: 'invalid_request_error',
          param: 'model',
          code: 'invalid_request_error',
        },
      });
    });

    it('rejects an unsupported id with the list of supported API model names', () => {
      expect(errorOf({ ...base, model: 'primary-v4.1-flash' })).toEqual({
        status: 400,
        error: {
          message:
            "Model 'primary-v4.1-flash' is not supported. Supported API model names: primary-flash, primary-v4-pro",
          type: 'invalid_request_error',
          param: 'model',
          code: 'model_not_found',
        },
      });
    });
  });

  describe('the messages field', () => {
    it('rejects a missing or empty list', () => {
      expect(errorOf({ model: 'primary-flash' }).error.message).toBe(
        "Field 'messages' must be a non-empty array of message objects",
      );
      expect(errorOf({ ...base, messages: [] }).error.param).toBe('messages');
    });

    it('names the message with an unknown role', () => {
      expect(
        errorOf({ ...base, messages: [base.messages[0], { role: 'robot', content: 'x' }] }).error.message,
      ).toBe('messages[1].role must be one of system, developer, user, assistant, tool');
    });

    it('rejects a user message without text content', () => {
      expect(errorOf({ ...base, messages: [{ role: 'user', content: 5 }] }).error.message).toBe(
        'messages[0].content must be a string or an array',
      );
    });

    it('rejects tool call arguments that are not JSON text', () => {
      const assistant = {
        role: 'assistant',
        content: null,
        reasoning_content: 'r',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'grep', arguments: { q: 1 } } }],
      };
      expect(errorOf({ ...base, messages: [base.messages[0], assistant] }).error.message).toMatch(
        /^messages\[1\]\.tool_calls\[0\] must be .* with arguments as JSON text$/,
      );
    });

    it('rejects a tool result that answers no earlier tool call', () => {
      const tool = { role: 'tool', tool_call_id: 'call_missing', content: 'x' };
      expect(errorOf({ ...base, messages: [base.messages[0], tool] }).error.message).toContain(
        'tool_call_id "call_missing" was not found',
      );
    });
  });

  describe('other fields', () => {
    it.each([
      [{ temperature: 3 }, 'temperature'],
      [{ temperature: '0' }, 'temperature'],
      [{ thinking: { type: 'maybe' } }, 'thinking'],
      [{ response_format: { type: 'json_schema' } }, 'response_format'],
      [{ logprobs: 'yes' }, 'logprobs'],
      [{ logprobs: true, top_logprobs: 21 }, 'top_logprobs'],
      [{ top_logprobs: 1 }, 'top_logprobs'],
      [{ max_tokens: 0 }, 'max_tokens'],
      [{ stream: 'yes' }, 'stream'],
      [{ stream_options: { include_usage: true } }, 'stream_options'],
      [{ stream: true, stream_options: [] }, 'stream_options'],
      [{ stream: true, stream_options: { include_usage: 1 } }, 'stream_options'],
      [{ tools: [{ type: 'function', function: {} }] }, 'tools'],
      [{ tool_choice: { type: 'function', function: { name: 'absent' } } }, 'tool_choice'],
    ])('rejects %j with a 400 naming %s', (extra, param) => {
      const { status, error } = errorOf({ ...base, ...extra });
      expect(status).toBe(400);
      expect(error.param).toBe(param);
      expect(String(error.message)).toContain(param);
    });
  });
});
