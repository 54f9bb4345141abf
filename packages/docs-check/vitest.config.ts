import { defineProject } from 'vitest/config';
import { sourceAliases } from '../../vitest.shared.ts';

export default defineProject({
  resolve: { alias: sourceAliases },
  // Building one TypeScript program over every package's source, or running each block, takes a while on a busy machine.
  test: { include: ['test/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 180_000 },
});
