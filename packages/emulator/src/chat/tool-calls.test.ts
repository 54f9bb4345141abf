import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postChat, user } from '../../test/support/test-support.js';
import { type Emulator, startEmulator } from '../server/start-emulator.js';
import { toolArguments } from './tool-calls.js';

const grep = {
  type: 'function',
  function: {
    name: 'grep_repository',
    description: 'Search the repository',
    parameters: {
      type: 'object',
      properties: {
        pattern: { type: 'string' },
        limit: { type: 'integer' },
        mode: { enum: ['fast', 'slow'] },
      },
      required: ['pattern', 'limit', 'mode'],
    },
  },
};
const readFile = {
  type: 'function',
  function: { name: 'read_file', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
};
const tools = [grep, readFile];
const ask = user('Use grep_repository to find TODO markers');

describe('planToolCalls', () => {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await startEmulator();
  });
  afterAll(async () => {
    await emulator.close();
  });

  describe('a user message naming an offered tool', () => {
    it('calls the tool in OpenAI shape with finish_reason tool_calls', async () => {
      const reply = await postChat(emulator.url, { model: 'primary-flash', messages: [ask], tools });
      const choice = reply.json.choices[0];
      expect(choice.finish_reason).toBe('tool_calls');
      expect(choice.message.content).toBe('');
      expect(choice.message.reasoning_content).toMatch(/^Thinking about: Use grep_repository/);
      expect(choice.message.tool_calls).toEqual([
        {
          id: expect.stringMatching(/^call_[0-9a-f]{8}$/),
          type: 'function',
          function: { name: 'grep_repository', arguments: expect.any(String) },
        },
      ]);
      expect(JSON.parse(choice.message.tool_calls[0].function.arguments)).toEqual({
        pattern: 'to find TODO markers',
        limit: 1,
        mode: 'fast',
      });
    });

    it('calls every named tool in the order they were offered', async () => {
      const reply = await postChat(emulator.url, {
        model: 'primary-flash',
        messages: [user('First read_file then grep_repository')],
        tools,
      });
      const names = reply.json.choices[0].message.tool_calls.map(
        (call: { function: { name: string } }) => call,
      );
      expect(names.map((call: { function: { name: string } }) => call.function.name)).toEqual([
        'grep_repository',
        'read_file',
      ]);
    });
  });

  describe('a user message naming no tool', () => {
    it('answers with content and no tool calls', async () => {
      const reply = await postChat(emulator.url, {
        model: 'primary-flash',
        messages: [user('Say hello')],
        tools,
      });
      expect(reply.json.choices[0].finish_reason).toBe('stop');
      expect(reply.json.choices[0].message).not.toHaveProperty('tool_calls');
    });

    it('calls the first tool when tool_choice is required', async () => {
      const reply = await postChat(emulator.url, {
        model: 'primary-flash',
        messages: [user('Say hello')],
        tools,
        tool_choice: 'required',
      });
      expect(reply.json.choices[0].message.tool_calls[0].function.name).toBe('grep_repository');
    });

    it('calls the function tool_choice names', async () => {
      const reply = await postChat(emulator.url, {
        model: 'primary-flash',
        messages: [ask],
        tools,
        tool_choice: { type: 'function', function: { name: 'read_file' } },
      });
      expect(
        reply.json.choices[0].message.tool_calls.map(
          (call: { function: { name: string } }) => call.function.name,
        ),
      ).toEqual(['read_file']);
    });

    it('calls nothing when tool_choice is none', async () => {
      const reply = await postChat(emulator.url, {
        model: 'primary-flash',
        messages: [ask],
        tools,
        tool_choice: 'none',
      });
      expect(reply.json.choices[0].message).not.toHaveProperty('tool_calls');
    });
  });

  describe('the turn after a tool call', () => {
    it('gives a final answer mentioning the tool result when reasoning is replayed', async () => {
      const first = await postChat(emulator.url, { model: 'primary-flash', messages: [ask], tools });
      const assistant = first.json.choices[0].message;
      const call = assistant.tool_calls[0];
      const messages = [
        ask,
        assistant,
        { role: 'tool', tool_call_id: call.id, content: 'src/app.ts:12 TODO fix retry' },
      ];
      const second = await postChat(emulator.url, { model: 'primary-flash', messages, tools });
      expect(second.status).toBe(200);
      expect(second.json.choices[0].finish_reason).toBe('stop');
      expect(second.json.choices[0].message).not.toHaveProperty('tool_calls');
      expect(second.json.choices[0].message.content).toMatch(
        /^Tool result from grep_repository: src app ts 12 TODO fix retry\./,
      );
    });

    it('rejects an assistant tool-call turn replayed without reasoning_content while thinking', async () => {
      const first = await postChat(emulator.url, { model: 'primary-flash', messages: [ask], tools });
      const { reasoning_content: _dropped, ...assistant } = first.json.choices[0].message;
      const messages = [
        { role: 'system', content: 'Be careful.' },
        ask,
        assistant,
        { role: 'tool', tool_call_id: assistant.tool_calls[0].id, content: 'nothing found' },
      ];
      const second = await postChat(emulator.url, { model: 'primary-flash', messages, tools });
      expect(second.status).toBe(400);
      expect(second.json.error).toEqual({
        message:
          'Missing `reasoning_content` field in the assistant message at message index 2. ' +
          'The reasoning_content of an assistant turn with tool calls must be passed back to the API in thinking mode.',
        type: 'invalid_request_error',
        param: 'messages',
        code: 'invalid_request_error',
      });
    });

    it('accepts a tool-call turn without reasoning_content when thinking is disabled', async () => {
      const thinking = { type: 'disabled' };
      const first = await postChat(emulator.url, {
        model: 'primary-flash',
        messages: [ask],
        tools,
        thinking,
      });
      const assistant = first.json.choices[0].message;
      expect(assistant).not.toHaveProperty('reasoning_content');
      const messages = [
        ask,
        assistant,
        { role: 'tool', tool_call_id: assistant.tool_calls[0].id, content: 'none' },
      ];
      const second = await postChat(emulator.url, { model: 'primary-flash', messages, tools, thinking });
      expect(second.status).toBe(200);
    });
  });
});

describe('toolArguments', () => {
  describe('a schema without required properties', () => {
    it('gives an empty object', () => {
      expect(
        toolArguments({ name: 'read_file', parameters: readFile.function.parameters }, 'read_file x'),
      ).toEqual({});
    });
  });

  describe('a required string with nothing after the tool name', () => {
    it('falls back to the property name', () => {
      const parameters = { properties: { path: { type: ['string', 'null'] } }, required: ['path'] };
      expect(toolArguments({ name: 'read_file', parameters }, 'call read_file')).toEqual({ path: 'path' });
    });
  });

  describe('required properties of other types', () => {
    it('gives true, [] and {}', () => {
      const parameters = {
        properties: { flag: { type: 'boolean' }, list: { type: 'array' }, options: { type: 'object' } },
        required: ['flag', 'list', 'options'],
      };
      expect(toolArguments({ name: 't', parameters }, 't')).toEqual({ flag: true, list: [], options: {} });
    });
  });
});
