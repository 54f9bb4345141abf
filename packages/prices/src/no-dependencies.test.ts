import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import packageJson from '../package.json' with { type: 'json' };

describe('@switchboard/prices on import', () => {
  it('has no runtime dependency', () => {
    expect(Object.keys(packageJson)).not.toContain('dependencies');
  });

  it('loads nothing but its own source files (no package, no Node built-in)', async () => {
    const result = await build({
      absWorkingDir: fileURLToPath(new URL('..', import.meta.url)),
      entryPoints: ['src/index.ts'],
      bundle: true,
      write: false,
      metafile: true,
      format: 'esm',
      platform: 'neutral',
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.filter((input) => !/^src\/[\w.-]+\.(ts|json)$/.test(input))).toEqual([]);
    expect(inputs.some((input) => input.includes('__fixtures__') || input.endsWith('.test.ts'))).toBe(false);
  });
});
