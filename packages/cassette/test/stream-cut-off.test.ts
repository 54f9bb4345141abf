import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { examineCassette, readCassette } from '../src/index.js';
import { cassettePath } from './support/cassette-path.js';

// Nothing of a call is written before it ends: a process killed in the middle of a long stream leaves
// the cassette as its earlier calls left it (every line whole), never a line cut at the events that
// had arrived, and the check passes on what is there.
const CHILD = fileURLToPath(new URL('./fixtures/stream-cut-off.mjs', import.meta.url));

describe('a process killed in the middle of a recorded stream', () => {
  it('leaves its earlier calls whole and no line of the stream', async () => {
    const path = cassettePath('cut-off');
    const child = spawn(process.execPath, [CHILD, path, '5000'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.once('exit', (_code, signal) => resolve(signal)),
    );
    const said = await new Promise<string>((resolve, reject) => {
      child.stdout.once('data', (data: Buffer) => resolve(data.toString('utf8')));
      child.once('exit', (code) =>
        reject(new Error(`the recording process exited (code ${code}) before its stream`)),
      );
    });
    expect(JSON.parse(said)).toEqual({ midStream: 5000 });
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    const text = readFileSync(path, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    expect(text).not.toContain('chatcmpl-cut');
    const cassette = readCassette(path);
    expect(cassette.entries.map((entry) => entry.streamed)).toEqual([false]);
    const { problems, summary } = examineCassette(path, { keys: ['a-real-looking-key-0003'] });
    expect(problems).toEqual([]);
    expect(summary.calls).toBe(1);
  });
});
