import { configDefaults, defineConfig } from 'vitest/config';
import { sourceAliases } from './vitest.shared.ts';

// Running `vitest` at the root runs every test file in the repository at once,
// with each `@switchboard/<name>` import resolved to that package's source.
export default defineConfig({
  resolve: { alias: sourceAliases },
  test: {
    include: ['**/*.test.ts'],
    exclude: [...configDefaults.exclude, '**/dist/**', '**/.turbo/**'],
  },
});
