import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const PRICES = realpathSync(join(PACKAGE, 'node_modules/@switchboard/prices'));
const ADAPTER = realpathSync(join(PACKAGE, 'node_modules/@switchboard/adapter'));

// A project outside the repository with the built packages and no @opentelemetry/api anywhere up its tree.
function projectWithoutOtel(): string {
  const project = mkdtempSync(join(tmpdir(), 'no-otel-'));
  const scope = join(project, 'node_modules/@switchboard');
  mkdirSync(join(scope, 'telemetry'), { recursive: true });
  cpSync(join(PACKAGE, 'package.json'), join(scope, 'telemetry/package.json'));
  cpSync(join(PACKAGE, 'dist'), join(scope, 'telemetry/dist'), { recursive: true });
  symlinkSync(PRICES, join(scope, 'prices'), 'dir');
  symlinkSync(ADAPTER, join(scope, 'adapter'), 'dir');
  writeFileSync(join(project, 'package.json'), '{"type":"module"}');
  return project;
}

const SCRIPT = `
let otel = 'absent';
try { await import('@opentelemetry/api'); otel = 'present'; } catch {}
const telemetry = await import('@switchboard/telemetry');
await import('@switchboard/adapter');
const observer = await telemetry.otelObserver({ endpoint: { provider: 'primary', baseUrl: 'https://api.primary.example' } });
observer.afterCall?.({ model: 'primary-flash', usage: null, costUsd: null, costNanoUsd: null, pricedAs: null, priceSource: null,
  tariff: null, at: new Date().toISOString(), durationMs: 1, attempts: 1 });
const meter = new telemetry.CallMeter();
console.log(JSON.stringify({ otel, observer: Object.keys(observer), meter: typeof meter.snapshot }));
`;

describe('without @opentelemetry/api installed', () => {
  it('imports the packages and gives an observer that does nothing', () => {
    const project = projectWithoutOtel();
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', SCRIPT], {
      cwd: project,
      env: { PATH: process.env.PATH ?? '' },
      encoding: 'utf8',
    });
    expect(JSON.parse(output)).toEqual({ otel: 'absent', observer: [], meter: 'function' });
  }, 30_000);
});
