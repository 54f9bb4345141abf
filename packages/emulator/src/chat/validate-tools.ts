import { invalidField } from '../http/api-error.js';
import type { RouteResult } from '../http/route-result.js';
import type { ToolChoice, ToolDefinition } from './chat-request.js';

/** The validated tools and tool choice of a request, or the error to answer. */
export type ToolsOutcome =
  | { readonly ok: true; readonly tools: ToolDefinition[]; readonly toolChoice: ToolChoice }
  | { readonly ok: false; readonly error: RouteResult };

/** Checks `tools` (function tools in OpenAI shape) and `tool_choice`. */
export function validateTools(tools: unknown, toolChoice: unknown): ToolsOutcome {
  const definitions: ToolDefinition[] = [];
  if (tools !== undefined && tools !== null) {
    if (!Array.isArray(tools)) return fail('tools', "Field 'tools' must be an array of function tools");
    for (const [index, tool] of tools.entries()) {
      const record = tool as { type?: unknown; function?: { name?: unknown; parameters?: unknown } } | null;
      const name = record?.function?.name;
      if (record?.type !== 'function' || typeof name !== 'string' || name === '') {
        return fail('tools', `tools[${index}] must be {type: 'function', function: {name, parameters}}`);
      }
      definitions.push({ name, parameters: record.function?.parameters });
    }
  }
  if (toolChoice === undefined || toolChoice === null)
    return { ok: true, tools: definitions, toolChoice: 'auto' };
  if (toolChoice === 'auto' || toolChoice === 'none' || toolChoice === 'required') {
    return { ok: true, tools: definitions, toolChoice };
  }
  const named = (toolChoice as { function?: { name?: unknown } }).function?.name;
  if (typeof named === 'string' && definitions.some((tool) => tool.name === named)) {
    return { ok: true, tools: definitions, toolChoice: { name: named } };
  }
  return fail(
    'tool_choice',
    "Field 'tool_choice' must be 'auto', 'none', 'required' or {type: 'function', function: {name}} " +
      'naming an offered tool',
  );
}

function fail(param: string, message: string): ToolsOutcome {
  return { ok: false, error: invalidField(param, message) };
}
