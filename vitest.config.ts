import { defineConfig } from 'vitest/config';
import { sourceAliases } from './vitest.shared.ts';

// Running `vitest` at the root runs every package's tests at once.
export default defineConfig({
  resolve: { alias: sourceAliases },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'apps/*/src/**/*.test.ts', 'apps/*/test/**/*.test.ts', 'test/**/*.test.ts'],
  },
});
