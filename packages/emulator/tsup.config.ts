import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.config.base.ts';

export default defineConfig([
  // The first build cleans dist/ but spares the bin's files, which the second writes at the same time.
  packageBuild({ clean: ['!cli.js', '!cli.js.map'] }),
  // The bin is an ESM program with top-level await, never required: one format, no declarations.
  packageBuild({ entry: ['src/cli.ts'], format: ['esm'], dts: false, clean: false }),
]);
