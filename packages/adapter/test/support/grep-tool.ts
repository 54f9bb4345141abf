import type { ToolSchema } from '../../src/index.js';

/** A tool the model can be asked to call: searching the repository for a pattern. */
export const grepTool: ToolSchema = {
  type: 'function',
  function: {
    name: 'grep_repository',
    description: 'Searches the repository for a pattern.',
    parameters: { type: 'object', properties: { pattern: { type: 'string' } }, required: ['pattern'] },
  },
};
