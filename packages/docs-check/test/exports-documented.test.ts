import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { libraryPackages } from '../../../scripts/workspace-packages.mjs';
import { unmentioned, valueExports } from '../src/value-exports.js';

// Every value a published library exports (a function, class or constant its users can import)
// is named in its README, where its users look first: an export nobody documents is either
// documented there, in a line, or not exported.
const libraries = libraryPackages();
const entry = (dir: string) => join(dir, 'src/index.ts');
let exported = new Map<string, string[]>();

beforeAll(() => {
  exported = valueExports(libraries.map((pkg) => entry(pkg.dir)));
});

describe('every value export of a library is named in its README', () => {
  for (const pkg of libraries) {
    it(`${pkg.name}`, () => {
      const readme = readFileSync(join(pkg.dir, 'README.md'), 'utf8');
      expect(unmentioned(exported.get(entry(pkg.dir)) ?? [], readme)).toEqual([]);
    });
  }
});

describe('unmentioned', () => {
  it('finds a name only as a whole word', () => {
    expect(
      unmentioned(['priceOf', 'costOf', 'NANO_USD', '$ref'], 'priceOfModel and `costOf(x)`; $ref'),
    ).toEqual(['priceOf', 'NANO_USD']);
  });
});
