// DEBUG=ioredis:* makes ioredis log every command it writes with its arguments, AUTH's
// too (issue 34, item 16): the password must not reach that output, whether the store
// connects from a url or is given a caller's client, for a short password and for one
// long enough that ioredis prints it cut (past 200 characters), and after a reconnect. On
// ioredis 6 (the child's require('ioredis') made to load it by test/support/ioredis-6.cjs),
// which sends the credentials with HELLO 3 … AUTH instead of AUTH.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from './support/start-redis.js';

const run = promisify(execFile);
const child = fileURLToPath(new URL('./support/redis-debug-child.ts', import.meta.url));
const ioredis6 = fileURLToPath(new URL('./support/ioredis-6.cjs', import.meta.url));
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

  for (const [how, username, password, version] of [
    ['url', '-', SHORT, 5],
    ['client', '-', SHORT, 5],
    ['url', 'budget-debug', LONG, 5],
    ['client', 'budget-debug', LONG, 5],
    ['url', '-', SHORT, 6],
    ['url', 'budget-debug', LONG, 6],
  ] as const) {
    it(`${how === 'url' ? 'from a url' : "with a caller's client"}, ${password === SHORT ? 'a short password' : 'a password ioredis cuts (over 200 characters)'}, ioredis ${version}`, async () => {
      const { stdout, stderr } = await run(
        process.execPath,
        [
          ...(version === 6 ? ['--require', ioredis6] : []),
          '--import',
          'tsx',
          child,
          how,
          String(redis.port),
          username,
          password,
        ],
        {
          cwd: packageRoot,
          env: { ...process.env, DEBUG: 'ioredis:*', DEBUG_COLORS: 'no' },
          timeout: 30_000,
          maxBuffer: 16 * 1024 * 1024,
        },
      );
      expect(JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}')).toEqual({ granted: true });
      const output = `${stdout}\n${stderr}`;
      // ioredis did log the AUTH command (ioredis 6: HELLO), twice (the first connection and the reconnect)...
      const logged = version === 6 ? /-> hello\(/g : /-> auth\(/g;
      expect(output.match(logged)?.length ?? 0).toBeGreaterThanOrEqual(2);
      // ...without the password, nor any 12 characters of it.
      for (let start = 0; start + 12 <= password.length; start += 6) {
        expect(output).not.toContain(password.slice(start, start + 12));
      }
      expect(output).not.toContain(password);
    }, 60_000);
  }
});
