import { readFileSync } from 'node:fs';
import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.config.base.ts';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as {
  version: string;
};

// The CLI is an ESM program, never required: one format.
export default defineConfig(
  packageBuild({
    entry: ['src/cli.ts'],
    format: ['esm'],
    dts: false,
    define: { SWITCHBOARD_VERSION: JSON.stringify(version) },
  }),
);
