// Writes src/prices-version.ts from package.json's version, before each build, so
// the constant ships in the bundle without reading a file at run time.
// src/prices-version.test.ts fails when the two drift apart.
import { readFileSync, writeFileSync } from 'node:fs';

const root = new URL('..', import.meta.url);
const { version } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
const target = new URL('src/prices-version.ts', root);
const text = `// Generated from package.json by scripts/write-prices-version.mjs on every build; do not edit.

/** The version of \`@switchboard/prices\`, which names the price data a call was costed with. */
export const PRICES_VERSION = '${version}';
`;
let current = '';
try {
  current = readFileSync(target, 'utf8');
} catch {}
if (current !== text) writeFileSync(target, text);
