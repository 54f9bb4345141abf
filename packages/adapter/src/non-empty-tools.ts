import type { ToolSchema } from './chat-client.js';

/** The tools to put on the wire: the list when it has entries, else undefined,, so `tools` is omitted. */
export function nonEmptyTools(tools: readonly ToolSchema[] | null | undefined): ToolSchema[] | undefined {
  return Array.isArray(tools) && tools.length > 0 ? tools : undefined;
}
