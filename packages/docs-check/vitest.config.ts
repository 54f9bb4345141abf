import { defineProject } from 'vitest/config';

export default defineProject({
  // Building one TypeScript program over every package's source takes a while on a busy machine.
  test: { include: ['test/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 180_000 },
});
