import { readFileSync } from 'node:fs';
import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.config.base.ts';

const { version } = JSON.parse(readFileSync(new URL('package.json', import.meta.url), 'utf8')) as {
  version: string;
};

// The package version names the instrumentation scope of spans and metrics.
export default defineConfig(
  packageBuild({ define: { __SWITCHBOARD_TELEMETRY_VERSION__: JSON.stringify(version) } }),
);
