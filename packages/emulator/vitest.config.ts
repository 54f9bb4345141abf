import { defineProject } from 'vitest/config';
import { hangGuards, sourceAliases } from '../../vitest.shared.ts';

export default defineProject({
  resolve: { alias: sourceAliases },
  test: { include: ['src/**/*.test.ts', 'test/**/*.test.ts'], ...hangGuards },
});
