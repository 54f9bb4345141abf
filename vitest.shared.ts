import { fileURLToPath } from 'node:url';

const packageNames = ['prices', 'adapter', 'scripted', 'endpoint', 'emulator', 'test-support'] as const;

/**
 * Maps each `@switchboard/<name>` import to its TypeScript source, so tests run
 * against the code as written, without a build step.
 */
export const sourceAliases = Object.fromEntries(
  packageNames.map((name) => [
    `@switchboard/${name}`,
    fileURLToPath(new URL(`./packages/${name}/src/index.ts`, import.meta.url)),
  ]),
);
