// The API reference (`pnpm run docs:api`): one section per published workspace
// library package, the list taken from the workspace so private packages (and the
// command-line tool, which has no API) stay out.
import { libraryPackages } from './scripts/workspace-packages.mjs';

/** @type {Partial<import('typedoc').TypeDocOptions>} */
export default {
  name: 'Switchboard',
  entryPointStrategy: 'packages',
  entryPoints: libraryPackages().map((pkg) => pkg.folder),
  packageOptions: {
    entryPoints: ['src/index.ts'],
    excludeExternals: true,
    excludeInternal: true,
    excludePrivate: true,
    disableSources: true,
    skipErrorChecking: true,
    validation: { notExported: true, invalidLink: true, notDocumented: false },
  },
  out: 'docs/api',
  readme: 'none',
  excludePrivate: true,
  excludeInternal: true,
  treatWarningsAsErrors: true,
  // Doc comments show configuration (TOML) and shell examples besides TypeScript.
  highlightLanguages: [
    'bash',
    'console',
    'javascript',
    'json',
    'jsonc',
    'sh',
    'shell',
    'text',
    'toml',
    'ts',
    'tsx',
    'typescript',
  ],
};
