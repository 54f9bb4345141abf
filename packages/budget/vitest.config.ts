import { defineProject } from 'vitest/config';
import { sourceAliases } from '../../vitest.shared.ts';

export default defineProject({
  resolve: { alias: sourceAliases },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The load test forks worker processes and starts redis-server; the machine is shared.
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
