import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = mkdtempSync(join(tmpdir(), 'switchboard-cassette-'));
let made = 0;

/** A fresh cassette path in this run's temporary folder. */
export function cassettePath(name = 'session'): string {
  made += 1;
  return join(dir, `${name}-${made}.cassette.jsonl`);
}
