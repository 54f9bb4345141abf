import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.config.base.ts';

// No `keepNames`: its `__name` wrapper on every function costs a fifth of the
// 3 KB budget (issue 11), and the one class, PriceBook, never refers to itself
// by name, so esbuild keeps its name anyway.
export default defineConfig(packageBuild({ keepNames: false }));
