import { readFileSync } from 'node:fs';
import { defineProject } from 'vitest/config';
import { hangGuards, sourceAliases } from '../../vitest.shared.ts';

const { version } = JSON.parse(readFileSync(new URL('package.json', import.meta.url), 'utf8')) as {
  version: string;
};

export default defineProject({
  // As the build defines it (tsup.config.ts): the instrumentation scope's version.
  define: { __SWITCHBOARD_TELEMETRY_VERSION__: JSON.stringify(version) },
  resolve: { alias: sourceAliases },
  test: { include: ['src/**/*.test.ts', 'test/**/*.test.ts'], ...hangGuards },
});
