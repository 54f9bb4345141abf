import type { ChatMessage, ToolSchema } from '../../src/index.js';

/** A tool the model can be asked to call: searching the repository for a pattern. */
export const grepTool: ToolSchema = {
  type: 'function',
  function: {
    name: 'grep_repository',
    description: 'Searches the repository for a pattern.',
    parameters: { type: 'object', properties: { pattern: { type: 'string' } }, required: ['pattern'] },
  },
};

/** A user turn that has the model call {@link grepTool}: list the open TODO markers. */
export const askForTodos: ChatMessage = {
  role: 'user',
  content: 'Use grep_repository TODO to list the open markers.',
};
