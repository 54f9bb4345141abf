import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { schemaSql } from '../src/postgres-sql.js';

describe('docs/budgets.md, On PostgreSQL', () => {
  it('shows the SQL migrate() runs, for the default schema, as it is', () => {
    const page = readFileSync(fileURLToPath(new URL('../../../docs/budgets.md', import.meta.url)), 'utf8');
    expect(page).toContain(`\`\`\`sql\n${schemaSql('switchboard')}\`\`\``);
  });
});
