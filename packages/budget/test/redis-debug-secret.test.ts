// DEBUG=ioredis:* makes ioredis log every command it writes with its arguments, AUTH's
// too (issue 34, item 16): the password must not reach that output, whether the store
// connects from a url or is given a caller's client, for a short password and for one
// long enough that ioredis prints it cut (past 200 characters), and after a reconnect.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from './support/start-redis.js';

const run = promisify(execFile);
const child = fileURLToPath(new URL('./support/redis-debug-child.ts', import.meta.url));
const packageRoot = fileURLToPath(new URL('../', import.meta.url));
const SHORT = 'pw-7f3a9c';
const LONG = `long-${'0123456789abcdef'.repeat(16)}-end`;

describe('DEBUG=ioredis:* never prints the Redis password', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis({ password: SHORT });
    const admin = new Redis({ port: redis.port, password: SHORT });
    await admin.call('ACL', 'SETUSER', 'budget-debug', 'on', `>${LONG}`, '~*', '+@all');
    admin.disconnect();
  });
  afterAll(() => redis?.stop());

  for (const [how, username, password] of [
    ['url', '-', SHORT],
    ['client', '-', SHORT],
    ['url', 'budget-debug', LONG],
    ['client', 'budget-debug', LONG],
  ] as const) {
    it(`${how === 'url' ? 'from a url' : "with a caller's client"}, ${password === SHORT ? 'a short password' : 'a password ioredis cuts (over 200 characters)'}`, async () => {
      const { stdout, stderr } = await run(
        process.execPath,
        ['--import', 'tsx', child, how, String(redis.port), username, password],
        {
          cwd: packageRoot,
          env: { ...process.env, DEBUG: 'ioredis:*', DEBUG_COLORS: 'no' },
          timeout: 30_000,
          maxBuffer: 16 * 1024 * 1024,
        },
      );
      expect(JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}')).toEqual({ granted: true });
      const output = `${stdout}\n${stderr}`;
      // ioredis did log the AUTH command, twice (the first connection and the reconnect)...
      expect(output.match(/-> auth\(/g)?.length ?? 0).toBeGreaterThanOrEqual(2);
      // ...without the password, nor any 12 characters of it.
      for (let start = 0; start + 12 <= password.length; start += 6) {
        expect(output).not.toContain(password.slice(start, start + 12));
      }
      expect(output).not.toContain(password);
    }, 60_000);
  }
});
