import { describe, expect, it } from 'vitest';
import packageJson from '../package.json' with { type: 'json' };
import { PRICES_VERSION } from './prices-version.js';

describe('PRICES_VERSION', () => {
  it('is the version in package.json (run the build to regenerate it after a version bump)', () => {
    expect(PRICES_VERSION).toBe(packageJson.version);
  });
});
