import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.config.base.ts';

// `shims` gives the CommonJS build an `import.meta.url`, with which ioredis is loaded lazily.
export default defineConfig(packageBuild({ shims: true }));
