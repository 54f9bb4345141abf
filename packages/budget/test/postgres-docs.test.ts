import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { schemaSql } from '../src/postgres-sql.js';

describe('docs/budgets-postgres-schema.md', () => {
  it('shows the SQL migrate() runs, for the default schema, as it is', () => {
    const page = readFileSync(
      fileURLToPath(new URL('../../../docs/budgets-postgres-schema.md', import.meta.url)),
      'utf8',
    );
    expect(page).toContain(`\`\`\`sql\n${schemaSql('switchboard')}\`\`\``);
  });
});
