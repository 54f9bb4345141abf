import { describe, expect, it } from 'vitest';
import type { Io } from './io.js';
import { main } from './main.js';

function memoryIo(env: Record<string, string | undefined> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = { stdout: (text) => out.push(text), stderr: (text) => err.push(text), env, color: false };
  return { io, out: () => out.join(''), err: () => err.join('') };
}

describe('main', () => {
  it('resolves from the environment it is given, not process.env', async () => {
    const { io, out } = memoryIo({ SWITCHBOARD_CLIENT: 'scripted' });
    expect(await main(['resolve', '--json'], io)).toBe(0);
    expect(JSON.parse(out())).toMatchObject({ rule: 'scripted', endpoint: { provider: 'scripted' } });
  });

  it('returns 2 (bad input) with the reason on stderr when nothing resolves', async () => {
    const { io, err } = memoryIo();
    expect(await main(['resolve'], io)).toBe(2);
    expect(err()).toMatch(/^switchboard: no chat endpoint/);
  });

  it('answers through the scripted client for chat', async () => {
    const { io, out, err } = memoryIo({ SWITCHBOARD_CLIENT: 'dump' });
    expect(await main(['chat', 'findings?'], io)).toBe(0);
    expect(JSON.parse(out())).toBeInstanceOf(Array);
    expect(err()).toMatch(/usage not recorded \(scripted client\)/);
  });

  it('returns 2 for a usage error without throwing, with the switchboard prefix', async () => {
    const { io, err } = memoryIo();
    expect(await main(['no-such-command'], io)).toBe(2);
    expect(err()).toMatch(/^switchboard: unknown command 'no-such-command'/);
  });

  it('exits 2 naming the option for a temperature out of range', async () => {
    const { io, err } = memoryIo({ SWITCHBOARD_CLIENT: 'dump' });
    expect(await main(['chat', 'x', '--temperature', 'hot'], io)).toBe(2);
    expect(err()).toMatch(/--temperature: expected a number from 0 to 2, got 'hot'/);
  });
});
