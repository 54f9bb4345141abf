import { lastUserMessage, wordsOf } from './answer-text.js';
import type { ChatRequest, ToolDefinition } from './chat-request.js';
import { messageText } from './message-text.js';
import { hashText } from './seeded-random.js';

/** A tool call in the reply message, OpenAI shape. */
export interface ReplyToolCall {
  readonly id: string;
  readonly type: 'function';
  readonly function: { readonly name: string; readonly arguments: string };
}

/**
 * The tool calls the emulated model makes, in the order the tools were offered.
 * It calls tools only when the last message is the user's: with `tool_choice`
 * naming a function, that one; otherwise every offered tool whose name appears
 * as a whole word in that message (with `required`, the first tool when none
 * is named; with `none`, no tool).
 */
export function planToolCalls(request: ChatRequest, seed: string): ReplyToolCall[] {
  if (request.tools.length === 0 || request.toolChoice === 'none') return [];
  const last = request.messages.at(-1);
  if (last?.role !== 'user') return [];
  const text = messageText(lastUserMessage(request.messages)?.content);
  const choice = request.toolChoice;
  let chosen: ToolDefinition[];
  if (typeof choice === 'object') {
    chosen = request.tools.filter((tool) => tool.name === choice.name).slice(0, 1);
  } else {
    chosen = request.tools.filter((tool) => mentions(text, tool.name));
    if (chosen.length === 0 && choice === 'required') chosen = request.tools.slice(0, 1);
  }
  return chosen.map((tool, index) => ({
    id: `call_${hashText(`${seed} ${tool.name} ${index}`)}`,
    type: 'function',
    function: { name: tool.name, arguments: JSON.stringify(toolArguments(tool, text)) },
  }));
}

/**
 * Arguments for a call of `tool`: each required property of its parameters
 * schema gets a value by type — the first `enum` value; a string of up to 8
 * words that follow the tool's name in `text` (else the property's name); 1
 * for numbers; true; [] or {}.
 */
export function toolArguments(tool: ToolDefinition, text: string): Record<string, unknown> {
  const schema = tool.parameters as { properties?: Record<string, unknown>; required?: unknown } | undefined;
  const required = Array.isArray(schema?.required) ? schema.required : [];
  const values: Record<string, unknown> = {};
  for (const name of required) {
    if (typeof name !== 'string') continue;
    values[name] = valueFor(schema?.properties?.[name], name, wordsAfter(text, tool.name));
  }
  return values;
}

function valueFor(property: unknown, name: string, words: string): unknown {
  const schema = (property ?? {}) as { type?: unknown; enum?: unknown };
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const type = types.find((entry) => entry !== 'null');
  if (type === 'integer' || type === 'number') return 1;
  if (type === 'boolean') return true;
  if (type === 'array') return [];
  if (type === 'object') return {};
  return words === '' ? name : words;
}

function mentions(text: string, name: string): boolean {
  const escaped = name.replaceAll(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\w-])${escaped}(?![\\w-])`, 'u').test(text);
}

function wordsAfter(text: string, name: string): string {
  const at = text.indexOf(name);
  if (at < 0) return '';
  return wordsOf(text.slice(at + name.length))
    .slice(0, 8)
    .join(' ');
}
