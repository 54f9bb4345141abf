import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from '../../../scripts/workspace-packages.mjs';
import { stringLiterals, unmentioned } from '../src/value-exports.js';

// The OpenTelemetry observer's `error.type` is the call's ChatErrorKind; the GenAI conventions ask an
// instrumentation to document the list of errors it reports. docs/telemetry.md lists every kind, in the
// paragraph on error.type, so a kind added to the adapter fails here until the page names it.
describe('docs/telemetry.md documents every error.type value', () => {
  it('names each ChatErrorKind in its error.type paragraph', () => {
    const kinds = stringLiterals(join(root, 'packages/adapter/src/chat-error-kind.ts'), 'ChatErrorKind');
    expect(kinds).toContain('rate_limited');
    const page = readFileSync(join(root, 'docs/telemetry.md'), 'utf8');
    const paragraph = page.split(/\n\s*\n/).find((text) => text.startsWith('`error.type` is the call'));
    expect(paragraph, 'the paragraph that lists the error.type values').toBeDefined();
    expect(unmentioned(kinds, paragraph ?? '')).toEqual([]);
  });
});
